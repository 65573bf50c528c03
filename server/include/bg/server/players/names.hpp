#pragma once
/// @file names.hpp
/// Player and table names: what may be a name, and the key names are compared by.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace bg::server {

/// Why `name` cannot be a player's or a table's name, as a sentence for the client, or
/// nullopt when it can. A name is 1 to `max_bytes` bytes of UTF-8 made only of letters
/// and digits of ONE script (Latin, Greek, Cyrillic, or Chinese/Japanese/Korean) plus
/// `_`, `-` and `.`, and does not start with `/`. Refused: spaces, control and
/// invisible characters (zero-width, joiners, bidi marks, soft hyphen), combining marks,
/// symbols and emoji, and letters of two scripts in one name (the lookalikes of a
/// Cyrillic "а" in a Latin "alice").
[[nodiscard]] std::optional<std::string> name_problem(std::string_view name, std::size_t max_bytes);

/// The key two names are compared by (and accounts, bans and ratings are stored under):
/// `name` with Unicode's full case folding (ICU), so "Alice" and "ALICE", "Žan" and
/// "žan", "Ǆemal" and "ǆemal" are the same player. Plain ASCII names are folded
/// without ICU (this runs on every command). `name` must have passed name_problem();
/// a string that is not UTF-8 is returned as it is.
[[nodiscard]] std::string name_key(std::string_view name);

/// The key under which two names LOOK the same: the Unicode confusable skeleton
/// (UTS #39, ICU's uspoof) of `name`, case-folded, skeleton again. "аӏісе" (Cyrillic),
/// "alıce", "aIice" and "alice" have one lookalike key. Two names of one name_key()
/// may have different lookalike keys ("ALICE" is not drawn like "alice"): compare
/// both. Costs ICU calls even for ASCII: for taking a name, not for every command.
[[nodiscard]] std::string name_lookalike_key(std::string_view name);

/// Why a person may not take `name` (as a guest or when registering), or nullopt: its
/// case-folded or lookalike form begins with "gnubg" or "nardy" followed by nothing or
/// a character that is not a letter (`gnubg_expert`, `Gnubg-x`, `nardy_1`), the
/// computer players' names. `name` must have passed name_problem().
[[nodiscard]] std::optional<std::string> reserved_name_problem(std::string_view name);

/// `text` without the characters that reorder or hide text: the bidirectional
/// embeddings, overrides and isolates (U+202A..U+202E, U+2066..U+2069), the direction
/// marks (U+200E, U+200F, U+061C) and the zero-width characters (U+200B..U+200D,
/// U+2060, U+FEFF). Everything else, invalid UTF-8 included, is kept as it is. Used on
/// chat lines (table and lobby) before they are sent on.
[[nodiscard]] std::string strip_invisible(std::string_view text);

/// Whether `text` holds nothing but ASCII spaces and tabs (or nothing at all).
[[nodiscard]] bool blank(std::string_view text) noexcept;

}  // namespace bg::server
