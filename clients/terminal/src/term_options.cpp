// gammon-term's command line (term_options.hpp).

#include "bg/term/term_options.hpp"

#include <unistd.h>

#include <boost/program_options.hpp>
#include <cstdlib>
#include <sstream>

#include "bg/i18n/catalogue.hpp"
#include "bg/term/board_view.hpp"

namespace bg::term {
namespace {

namespace po = boost::program_options;

/// The language --lang names in `argv` ("" : none), read before the options are
/// parsed, since their descriptions are in it.
std::string lang_flag(int argc, const char* const* argv) {
  std::string out;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--lang" && i + 1 < argc) out = argv[i + 1];
    if (arg.rfind("--lang=", 0) == 0) out = arg.substr(7);
  }
  return out;
}

bool is_terminal(int fd) {
  return ::isatty(fd) == 1;
}

}  // namespace

bool term_options::set_url(const std::string& text) {
  const std::string scheme = "ws://";
  if (text.rfind(scheme, 0) != 0) return false;
  const std::string rest = text.substr(scheme.size());
  const auto slash = rest.find('/');
  const std::string authority = rest.substr(0, slash);
  const std::string path = slash == std::string::npos ? "/" : rest.substr(slash);
  std::string h;
  std::string p = "80";
  if (!authority.empty() && authority.front() == '[') {
    const auto close = authority.find(']');
    if (close == std::string::npos) return false;
    h = authority.substr(1, close - 1);
    const std::string after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':' || after.size() == 1) return false;
      p = after.substr(1);
    }
  } else {
    const auto colon = authority.find(':');
    h = authority.substr(0, colon);
    if (colon != std::string::npos) p = authority.substr(colon + 1);
  }
  if (h.empty() || p.empty() || p.find_first_not_of("0123456789") != std::string::npos) {
    return false;
  }
  url = text;
  host = h;
  port = p;
  target = path;
  return true;
}

std::string term_options::language_of(const std::string& flag, const char* lc_all,
                                      const char* lc_messages, const char* lang_env) {
  const auto& cat = i18n::catalogue::global();
  if (!flag.empty()) {
    const std::string tag = cat.supported(flag);
    return tag.empty() ? std::string{i18n::source_language} : tag;
  }
  // POSIX: the first variable that is set decides, even when it names no language here.
  for (const char* v : {lc_all, lc_messages, lang_env}) {
    if (v == nullptr || *v == '\0') continue;
    const std::string tag = cat.supported(v);
    return tag.empty() ? std::string{i18n::source_language} : tag;
  }
  return std::string{i18n::source_language};
}

term_options term_options::parse(int argc, const char* const* argv, std::ostream& out,
                                 std::ostream& err) {
  term_options o;
  o.lang = language_of(lang_flag(argc, argv), std::getenv("LC_ALL"), std::getenv("LC_MESSAGES"),
                       std::getenv("LANG"));
  const std::string& lang = o.lang;
  po::options_description desc{tr(lang, "term.help.usage")};
  std::string url;
  long reply_ms = 0;
  long linger_ms = 0;
  long backoff_ms = 0;
  // clang-format off
  desc.add_options()
    ("help,h", tr(lang, "term.help.help").c_str())
    ("version", tr(lang, "term.help.version").c_str())
    ("url", po::value(&url)->default_value(o.url), tr(lang, "term.help.url").c_str())
    ("name,n", po::value(&o.name), tr(lang, "term.help.name").c_str())
    ("table,t", po::value(&o.table), tr(lang, "term.help.table").c_str())
    ("lang", po::value<std::string>(), tr(lang, "term.help.lang").c_str())
    ("login", tr(lang, "term.help.login").c_str())
    ("register", tr(lang, "term.help.register").c_str())
    ("password-file", po::value(&o.password_file), tr(lang, "term.help.password_file").c_str())
    ("forget", tr(lang, "term.help.forget").c_str())
    ("script", tr(lang, "term.help.script").c_str())
    ("no-board", tr(lang, "term.help.no_board").c_str())
    ("no-color", tr(lang, "term.help.no_color").c_str())
    ("reply-timeout", po::value(&reply_ms)->default_value(10'000),
       tr(lang, "term.help.reply_timeout").c_str())
    ("linger", po::value(&linger_ms)->default_value(0), tr(lang, "term.help.linger").c_str())
    ("max-backoff", po::value(&backoff_ms)->default_value(8'000),
       tr(lang, "term.help.max_backoff").c_str());
  // clang-format on
  po::variables_map vm;
  try {
    // No abbreviations: "--password x" must not be taken for "--password-file x" (a
    // password typed on the command line is refused, not read as a file name).
    const auto style = po::command_line_style::unix_style & ~po::command_line_style::allow_guessing;
    po::store(po::command_line_parser(argc, argv).options(desc).style(style).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    err << "gammon-term: " << e.what() << "\n" << tr(lang, "term.error.try_help") << "\n";
    o.exit_now = 2;
    return o;
  }
  if (vm.count("help") != 0U) {
    out << desc << "\n" << tr(lang, "term.help.notes") << "\n";
    o.exit_now = 0;
    return o;
  }
  if (vm.count("version") != 0U) {
    out << "gammon-term " << GAMMOND_VERSION << "\n";
    o.exit_now = 0;
    return o;
  }
  const auto fail = [&](const std::string& why) {
    err << "gammon-term: " << why << "\n" << tr(lang, "term.error.try_help") << "\n";
    o.exit_now = 2;
    return o;
  };
  if (o.name.empty()) return fail(tr(lang, "term.error.name_required"));
  if (!o.set_url(url)) return fail(tr(lang, "term.error.bad_url"));
  if (reply_ms < 0 || linger_ms < 0 || backoff_ms < 100)
    return fail(tr(lang, "term.error.bad_times"));
  o.reply_timeout = std::chrono::milliseconds{reply_ms};
  o.linger = std::chrono::milliseconds{linger_ms};
  o.max_backoff = std::chrono::milliseconds{backoff_ms};
  o.register_account = vm.count("register") != 0U;
  o.login = !o.register_account && (vm.count("login") != 0U || !o.password_file.empty());
  if (vm.count("register") != 0U && vm.count("login") != 0U)
    return fail(tr(lang, "term.error.register_and_login"));
  if ((o.login || o.register_account) && o.password_file.empty() && !is_terminal(STDIN_FILENO)) {
    return fail(tr(lang, "term.error.password_file_needed"));
  }
  o.forget = vm.count("forget") != 0U;
  o.script = vm.count("script") != 0U || !is_terminal(STDIN_FILENO);
  o.board = vm.count("no-board") == 0U;
  const char* no_color = std::getenv("NO_COLOR");
  o.colour = vm.count("no-color") == 0U && !o.script && is_terminal(STDOUT_FILENO) &&
             (no_color == nullptr || *no_color == '\0');
  return o;
}

}  // namespace bg::term
