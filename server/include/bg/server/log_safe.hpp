#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace bg::server {

/// `text` made safe for one log line, for anything a client sent (a name, an Origin
/// header, a command argument): printable ASCII is kept; `"`, `\` and every other byte
/// (control characters, newlines, UTF-8 sequences) become `\xNN`; at most `max_bytes`
/// bytes of `text` are shown, followed by "..." when it was longer. Never throws but
/// std::bad_alloc.
[[nodiscard]] std::string log_safe(std::string_view text, std::size_t max_bytes = 200);

}  // namespace bg::server
