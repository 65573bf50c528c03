/// @file catalogue.cpp
/// Message catalogues over ICU MessageFormat (catalogue.hpp).

#include "bg/i18n/catalogue.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include <unicode/fmtable.h>
#include <unicode/locid.h>
#include <unicode/msgfmt.h>
#include <unicode/unistr.h>

namespace bg::i18n {

namespace detail {
extern const embedded_file embedded_files[];
}  // namespace detail

namespace {

/// A language tag as stored: lower case, '-' between subtags.
std::string normal_tag(std::string_view tag) {
  std::string out;
  for (char c : tag) {
    if (c == '.' || c == '@') break;  // "ru_RU.UTF-8", "de_DE@euro"
    out += c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

bool valid_tag(std::string_view tag) {
  if (tag.size() < 2 || tag.size() > 8) return false;
  return std::all_of(tag.begin(), tag.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

/// One message: its text and, once used, ICU's compiled form.
/// A piece of a simple message (entry::pieces): literal text (`arg` empty), an
/// argument written as it is, or an argument's select: the branch whose keyword is the
/// argument's value, else the "other" branch.
struct simple_piece {
  std::string text;  ///< the literal text, or the "other" branch of a select
  std::string arg;   ///< the argument's name; empty for literal text
  std::vector<std::pair<std::string, std::string>> branches;  ///< a select's, but "other"
  bool select = false;
};

struct entry {
  std::string text;
  mutable std::once_flag compiled;
  mutable std::unique_ptr<icu::MessageFormat> format;  // null when ICU refused it
  /// When every argument of `text` is a plain {name}, or a {name, select, ...} whose
  /// branches are plain text, and nothing else in it is ICU syntax (no apostrophe, no
  /// other brace): `text` cut at its arguments (issue 33: most sentences, rendered
  /// without ICU). Otherwise `simple` is false.
  mutable std::vector<simple_piece> pieces;
  mutable bool simple = false;
};

/// Cuts `e.text` into e.pieces and sets e.simple when the text is simple (entry).
void cut_simple(const entry& e) {
  const std::string& t = e.text;
  std::size_t i = 0;
  const auto word_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
  };
  const auto skip_space = [&] {
    while (i < t.size() && t[i] == ' ') ++i;
  };
  const auto word = [&] {
    const std::size_t start = i;
    while (i < t.size() && word_char(t[i])) ++i;
    return t.substr(start, i - start);
  };
  // Plain text up to the next brace: nullopt when it holds an apostrophe.
  const auto plain = [&]() -> std::optional<std::string> {
    const std::size_t start = i;
    while (i < t.size() && t[i] != '{' && t[i] != '}') {
      if (t[i] == '\'') return std::nullopt;
      ++i;
    }
    return t.substr(start, i - start);
  };
  std::vector<simple_piece> pieces;
  while (i < t.size()) {
    if (t[i] == '}') return;
    if (t[i] != '{') {
      auto text = plain();
      if (!text) return;
      pieces.push_back({std::move(*text), {}, {}, false});
      continue;
    }
    ++i;  // {
    skip_space();
    simple_piece p;
    p.arg = word();
    if (p.arg.empty()) return;
    skip_space();
    if (i < t.size() && t[i] == '}') {
      ++i;
      pieces.push_back(std::move(p));
      continue;
    }
    if (i >= t.size() || t[i] != ',') return;
    ++i;
    skip_space();
    if (word() != "select") return;
    skip_space();
    if (i >= t.size() || t[i] != ',') return;
    ++i;
    p.select = true;
    bool other = false;
    while (true) {
      skip_space();
      if (i < t.size() && t[i] == '}') {
        ++i;
        break;
      }
      const std::string keyword = word();
      if (keyword.empty()) return;
      skip_space();
      if (i >= t.size() || t[i] != '{') return;
      ++i;
      auto branch = plain();
      if (!branch || i >= t.size() || t[i] != '}') return;
      ++i;
      if (keyword == "other") {
        p.text = std::move(*branch);
        other = true;
      } else {
        p.branches.emplace_back(keyword, std::move(*branch));
      }
    }
    if (!other) return;
    pieces.push_back(std::move(p));
  }
  e.pieces = std::move(pieces);
  e.simple = true;
}

/// `e` rendered without ICU when it and `args` allow it: each argument a string of
/// printable ASCII, or (not for a select) an integer of at most three digits, which
/// ICU writes the same way; nullopt otherwise (ICU renders it then).
std::optional<std::string> render_simple(const entry& e, const nlohmann::json& args) {
  if (!e.simple || !args.is_object()) return std::nullopt;
  std::string out;
  out.reserve(e.text.size() + 32);
  for (const auto& p : e.pieces) {
    if (p.arg.empty()) {
      out += p.text;
      continue;
    }
    const auto it = args.find(p.arg);
    if (it == args.end()) return std::nullopt;
    if (it->is_string()) {
      const auto& v = it->get_ref<const std::string&>();
      for (const char c : v)
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7F)
          return std::nullopt;
      if (!p.select) {
        out += v;
        continue;
      }
      const auto branch = std::find_if(p.branches.begin(), p.branches.end(),
                                       [&](const auto& b) { return b.first == v; });
      out += branch != p.branches.end() ? branch->second : p.text;
    } else if (it->is_number_integer() && !p.select) {
      const auto n = it->get<std::int64_t>();
      if (n < -999 || n > 999) return std::nullopt;
      out += std::to_string(n);
    } else {
      return std::nullopt;
    }
  }
  return out;
}

struct language {
  std::string tag;
  std::map<std::string, std::unique_ptr<entry>, std::less<>> messages;
  mutable std::mutex json_mutex;
  mutable std::shared_ptr<const std::string> json;  // json_text(), made once
};

icu::Formattable formattable(const nlohmann::json& v) {
  if (v.is_number_integer()) return icu::Formattable(static_cast<int64_t>(v.get<std::int64_t>()));
  if (v.is_number_unsigned()) return icu::Formattable(static_cast<int64_t>(v.get<std::uint64_t>()));
  if (v.is_number_float()) return icu::Formattable(v.get<double>());
  if (v.is_string()) return icu::Formattable(icu::UnicodeString::fromUTF8(v.get<std::string>()));
  if (v.is_boolean()) return icu::Formattable(v.get<bool>() ? "true" : "false");
  return icu::Formattable(icu::UnicodeString::fromUTF8(v.dump()));
}

/// True when `v` is a nested sentence {"key": "...", "args": {...}}: an argument that is
/// itself a catalogue message, rendered in the same language first.
bool is_sentence(const nlohmann::json& v) {
  return v.is_object() && v.contains("key") && v["key"].is_string();
}

}  // namespace

struct catalogue::impl {
  std::map<std::string, std::unique_ptr<language>, std::less<>> languages;

  const language* find(std::string_view tag) const {
    auto it = languages.find(tag);
    return it == languages.end() ? nullptr : it->second.get();
  }
  const entry* lookup(std::string_view tag, std::string_view key) const {
    const language* l = find(tag);
    if (!l) return nullptr;
    auto it = l->messages.find(key);
    return it == l->messages.end() ? nullptr : it->second.get();
  }
};

catalogue::catalogue() : impl_(std::make_unique<impl>()) {}
catalogue::~catalogue() = default;

catalogue& catalogue::global() {
  static catalogue* const instance = [] {
    auto* c = new catalogue();  // never destroyed: used by threads until exit
    for (const auto* f = detail::embedded_files; f->tag; ++f) c->add(f->tag, f->text);
    return c;
  }();
  return *instance;
}

void catalogue::add(std::string_view tag_in, std::string_view json_text) {
  const std::string tag = normal_tag(tag_in);
  if (!valid_tag(tag)) throw std::invalid_argument("not a language tag: " + std::string(tag_in));
  const auto j = nlohmann::json::parse(json_text, nullptr, false);
  if (!j.is_object()) throw std::invalid_argument("a catalogue is one JSON object");
  auto& slot = impl_->languages[tag];
  if (!slot) {
    slot = std::make_unique<language>();
    slot->tag = tag;
  }
  for (const auto& [key, value] : j.items()) {
    if (!value.is_string())
      throw std::invalid_argument("the message of " + key + " is not a string");
    auto e = std::make_unique<entry>();
    e->text = value.get<std::string>();
    slot->messages[key] = std::move(e);
  }
  slot->json.reset();
}

void catalogue::load_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (const auto& lang : fs::directory_iterator(dir)) {
    if (!lang.is_directory()) continue;
    for (const auto& f : fs::directory_iterator(lang.path()))
      if (f.path().extension() == ".json") files.push_back(f.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    if (!in) throw std::runtime_error("cannot read " + f.string());
    try {
      add(f.parent_path().filename().string(), text.str());
    } catch (const std::exception& e) {
      throw std::runtime_error(f.string() + ": " + e.what());
    }
  }
}

std::string catalogue::render(std::string_view tag, std::string_view key,
                              const nlohmann::json& args) const {
  return render(tag, key, args, 0);
}

std::string catalogue::render_in(std::string_view tag, const nlohmann::json& sentence,
                                 int depth) const {
  const auto args = sentence.find("args");
  return render(tag, sentence["key"].get<std::string>(),
                args != sentence.end() ? *args : nlohmann::json::object(), depth);
}

std::string catalogue::render(std::string_view tag, std::string_view key,
                              const nlohmann::json& args, int depth) const {
  std::string lang = normal_tag(tag);
  const entry* e = impl_->lookup(lang, key);
  if (!e) {
    lang = source_language;
    e = impl_->lookup(lang, key);
  }
  if (!e) return std::string(key);
  std::call_once(e->compiled, [&] {
    UErrorCode status = U_ZERO_ERROR;
    auto f = std::make_unique<icu::MessageFormat>(icu::UnicodeString::fromUTF8(e->text),
                                                  icu::Locale(lang.c_str()), status);
    if (U_SUCCESS(status)) e->format = std::move(f);
    if (e->format) cut_simple(*e);
  });
  if (!e->format) return e->text;
  if (auto text = render_simple(*e, args)) return std::move(*text);
  std::vector<icu::UnicodeString> names;
  std::vector<icu::Formattable> values;
  if (args.is_object()) {
    names.reserve(args.size());
    values.reserve(args.size());
    for (const auto& [name, value] : args.items()) {
      names.push_back(icu::UnicodeString::fromUTF8(name));
      values.push_back(
          is_sentence(value) && depth < 4
              ? icu::Formattable(icu::UnicodeString::fromUTF8(render_in(tag, value, depth + 1)))
              : formattable(value));
    }
  }
  icu::UnicodeString out;
  UErrorCode status = U_ZERO_ERROR;
  e->format->format(names.data(), values.data(), static_cast<int32_t>(names.size()), out, status);
  if (U_FAILURE(status)) return e->text;
  std::string text;
  out.toUTF8String(text);
  return text;
}

bool catalogue::has(std::string_view tag, std::string_view key) const {
  return impl_->lookup(normal_tag(tag), key) != nullptr;
}

std::string catalogue::problem(std::string_view tag, std::string_view key) const {
  const std::string lang = normal_tag(tag);
  const entry* e = impl_->lookup(lang, key);
  if (!e) return {};
  UErrorCode status = U_ZERO_ERROR;
  UParseError where{};
  icu::MessageFormat f(icu::UnicodeString::fromUTF8(e->text), icu::Locale(lang.c_str()), where,
                       status);
  if (U_SUCCESS(status)) return {};
  return std::string(u_errorName(status)) + " at offset " + std::to_string(where.offset);
}

const std::string* catalogue::message(std::string_view tag, std::string_view key) const {
  const entry* e = impl_->lookup(normal_tag(tag), key);
  return e ? &e->text : nullptr;
}

std::vector<std::string> catalogue::keys(std::string_view tag) const {
  std::vector<std::string> out;
  if (const language* l = impl_->find(normal_tag(tag)))
    for (const auto& [key, e] : l->messages) out.push_back(key);
  return out;
}

std::vector<std::string> catalogue::languages() const {
  std::vector<std::string> out;
  if (impl_->find(source_language)) out.emplace_back(source_language);
  for (const auto& [tag, l] : impl_->languages)
    if (tag != source_language) out.push_back(tag);
  return out;
}

std::string catalogue::supported(std::string_view tag_in) const {
  const std::string tag = normal_tag(tag_in);
  if (tag.empty()) return {};
  if (impl_->find(tag)) return tag;
  const std::string primary = tag.substr(0, tag.find('-'));
  return impl_->find(primary) ? primary : std::string();
}

std::string catalogue::pick(std::string_view accept) const {
  struct choice {
    std::string tag;
    double q;
    std::size_t order;
  };
  std::vector<choice> choices;
  std::size_t start = 0;
  while (start <= accept.size() && choices.size() < 32) {
    std::size_t end = accept.find(',', start);
    if (end == std::string_view::npos) end = accept.size();
    std::string_view item = accept.substr(start, end - start);
    start = end + 1;
    std::string_view range = item.substr(0, item.find(';'));
    while (!range.empty() && range.front() == ' ') range.remove_prefix(1);
    while (!range.empty() && range.back() == ' ') range.remove_suffix(1);
    double q = 1.0;
    if (auto at = item.find(";q="); at != std::string_view::npos) {
      try {
        q = std::stod(std::string(item.substr(at + 3, 5)));
      } catch (const std::exception&) {
        q = 0;
      }
    }
    const std::string tag = supported(range);
    if (!tag.empty() && q > 0) choices.push_back({tag, q, choices.size()});
  }
  std::stable_sort(choices.begin(), choices.end(),
                   [](const choice& a, const choice& b) { return a.q > b.q; });
  return choices.empty() ? std::string(source_language) : choices.front().tag;
}

std::shared_ptr<const std::string> catalogue::json_text(std::string_view tag) const {
  const language* l = impl_->find(normal_tag(tag));
  if (!l) return nullptr;
  std::lock_guard lock(l->json_mutex);
  if (!l->json) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [key, e] : l->messages) j[key] = e->text;
    l->json = std::make_shared<const std::string>(j.dump());
  }
  return l->json;
}

std::string render(std::string_view tag, std::string_view key, const nlohmann::json& args) {
  return catalogue::global().render(tag, key, args);
}

std::string english(std::string_view key, const nlohmann::json& args) {
  return catalogue::global().render(source_language, key, args);
}

nlohmann::json say(std::string key, nlohmann::json args) {
  return nlohmann::json{{"key", std::move(key)}, {"args", std::move(args)}};
}

nlohmann::json& with_say(nlohmann::json& m, std::string key, nlohmann::json args,
                         const char* field) {
  m[field] = english(key, args);
  m["say"] = say(std::move(key), std::move(args));
  return m;
}

bool say_in(nlohmann::json& m, std::string_view tag) {
  if (!m.is_object()) return false;
  const auto s = m.find("say");
  if (s == m.end() || !s->is_object()) return false;
  const auto key = s->find("key");
  if (key == s->end() || !key->is_string()) return false;
  const auto args = s->find("args");
  const char* field = m.value("type", "") == "error" ? "message" : "text";
  m[field] =
      render(tag, key->get<std::string>(), args != s->end() ? *args : nlohmann::json::object());
  return true;
}

}  // namespace bg::i18n
