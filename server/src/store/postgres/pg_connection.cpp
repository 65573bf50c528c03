#include "pg_connection.hpp"

#include <libpq-fe.h>
#include <spdlog/spdlog.h>

#include <array>
#include <charconv>

#include "bg/server/store/database_url.hpp"

namespace bg::server::pg {

namespace {

/// libpq's messages end with a newline (sometimes several lines): one line for ours.
std::string tidy(const char* message) {
  std::string text = message ? message : "";
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  for (auto& c : text)
    if (c == '\n') c = ' ';
  return text.empty() ? "unknown error" : text;
}

/// `text` fit for an exception's message (which ends at a NUL byte): NUL shown as \0.
std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '\0') {
      out += "\\0";
    } else {
      out += c;
    }
  }
  return out;
}

void check_no_nul(const std::string& value, std::string_view what) {
  if (value.find('\0') != std::string::npos)
    throw storage_error(printable(what) +
                        ": a value holds a NUL byte, which PostgreSQL cannot store in text");
}

/// The bound values as libpq wants them: C strings (nullptr for NULL).
std::vector<const char*> values_of(const std::vector<param>& params, std::string_view what) {
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const auto& p : params) {
    if (p) check_no_nul(*p, what);
    values.push_back(p ? p->c_str() : nullptr);
  }
  return values;
}

}  // namespace

// --- result ----------------------------------------------------------------------

void result::deleter::operator()(pg_result* r) const noexcept {
  PQclear(r);
}

int result::rows() const noexcept {
  return r_ ? PQntuples(r_.get()) : 0;
}

std::string result::text(int row, int column) const {
  if (!r_ || PQgetisnull(r_.get(), row, column)) return {};
  return {PQgetvalue(r_.get(), row, column),
          static_cast<std::size_t>(PQgetlength(r_.get(), row, column))};
}

std::int64_t result::integer(int row, int column) const {
  const std::string value = text(row, column);
  std::int64_t out = 0;
  const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), out);
  if (value.empty() || ec != std::errc{} || ptr != value.data() + value.size())
    throw storage_error("PostgreSQL answered \"" + value + "\" where a number was expected");
  return out;
}

double result::real(int row, int column) const {
  const std::string value = text(row, column);
  double out = 0;
  const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), out);
  if (value.empty() || ec != std::errc{} || ptr != value.data() + value.size())
    throw storage_error("PostgreSQL answered \"" + value + "\" where a number was expected");
  return out;
}

std::string real_text(double value) {
  std::array<char, 64> buffer{};
  const auto [ptr, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  if (ec != std::errc{}) throw storage_error("cannot write a number as text");
  return {buffer.data(), ptr};
}

bool result::is_null(int row, int column) const noexcept {
  return !r_ || PQgetisnull(r_.get(), row, column) != 0;
}

// --- connection ------------------------------------------------------------------

connection::connection(std::string url, connect_settings settings, std::vector<statement> prepared)
    : url_(std::move(url)),
      masked_(masked_database(url_)),
      settings_(std::move(settings)),
      prepared_(std::move(prepared)) {}

connection::~connection() {
  drop();
}

void connection::drop() noexcept {
  if (conn_) PQfinish(conn_);
  conn_ = nullptr;
}

bool connection::connected() const noexcept {
  return conn_ && PQstatus(conn_) == CONNECTION_OK;
}

void connection::fail(std::string_view what, std::string message, std::string_view sqlstate) {
  message = scrub_password(std::move(message), url_);
  if (!connected()) {
    drop();
    throw connection_lost(printable(what) + ": the connection to PostgreSQL was lost (" + message +
                          ")");
  }
  if (sqlstate == "40P01" || sqlstate == "40001") throw conflict(printable(what) + ": " + message);
  throw storage_error(printable(what) + ": " + message);
}

void connection::ensure() {
  if (connected()) return;
  drop();
  const std::string timeout = std::to_string(settings_.connect_timeout_s);
  // The URL first (expanded), then our settings: a later keyword wins, so the flag's
  // connect_timeout holds; an application_name in the URL wins over the fallback.
  const std::array<const char*, 4> keywords{"dbname", "connect_timeout",
                                            "fallback_application_name", nullptr};
  const std::array<const char*, 4> values{url_.c_str(), timeout.c_str(), "gammond", nullptr};
  conn_ = PQconnectdbParams(keywords.data(), values.data(), /*expand_dbname=*/1);
  if (!conn_) throw storage_error("cannot connect to " + masked_ + ": out of memory");
  if (PQstatus(conn_) != CONNECTION_OK) {
    std::string message = scrub_password(tidy(PQerrorMessage(conn_)), url_);
    drop();
    throw storage_error("cannot connect to " + masked_ + ": " + message);
  }
  // The server's notices and warnings go to gammond's log, not raw to stderr.
  PQsetNoticeProcessor(
      conn_, [](void*, const char* message) { spdlog::warn("PostgreSQL: {}", tidy(message)); },
      nullptr);
  if (ever_connected_) ++reconnections_;
  ever_connected_ = true;
  ready_.assign(prepared_.size(), false);
  try {
    if (PQsetClientEncoding(conn_, "UTF8") != 0)
      fail("setting the client encoding", tidy(PQerrorMessage(conn_)));
    exec("setting up the session",
         "SELECT set_config('statement_timeout', $1, false), "
         "set_config('synchronous_commit', $2, false), "
         "set_config('client_min_messages', 'warning', false)",
         {std::to_string(settings_.statement_timeout_ms), settings_.synchronous_commit});
  } catch (...) {
    drop();
    throw;
  }
}

result connection::check(pg_result* r, std::string_view what) {
  result out(r);
  if (!r) fail(what, tidy(PQerrorMessage(conn_)));
  const auto status = PQresultStatus(r);
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    const char* state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
    fail(what, tidy(PQresultErrorMessage(r)), state ? std::string_view(state) : std::string_view{});
  }
  return out;
}

result connection::exec(std::string_view what, const char* sql, const std::vector<param>& params) {
  ensure();
  const auto values = values_of(params, what);
  return check(PQexecParams(conn_, sql, static_cast<int>(values.size()), nullptr, values.data(),
                            nullptr, nullptr, 0),
               what);
}

result connection::run(std::string_view what, const char* name, const std::vector<param>& params) {
  ensure();
  // Prepared on first use on each connection: the tables they name may be created by
  // the migration that runs on this same connection.
  std::size_t i = 0;
  while (i < prepared_.size() && std::string_view(prepared_[i].name) != name) ++i;
  if (i == prepared_.size()) throw storage_error(std::string(what) + ": no statement " + name);
  if (!ready_[i]) {
    check(PQprepare(conn_, name, prepared_[i].sql, 0, nullptr), std::string("preparing ") + name);
    ready_[i] = true;
  }
  const auto values = values_of(params, what);
  return check(PQexecPrepared(conn_, name, static_cast<int>(values.size()), values.data(), nullptr,
                              nullptr, 0),
               what);
}

void connection::command(std::string_view what, const char* sql) {
  ensure();
  check(PQexec(conn_, sql), what);
}

int connection::socket() const noexcept {
  return conn_ ? PQsocket(conn_) : -1;
}

std::vector<connection::notification> connection::notifications() {
  std::vector<notification> out;
  if (!conn_) fail("reading notifications", "not connected");
  if (PQconsumeInput(conn_) == 0 || PQstatus(conn_) != CONNECTION_OK) {
    const std::string message = tidy(PQerrorMessage(conn_));
    drop();
    throw connection_lost("reading notifications: the connection to PostgreSQL was lost (" +
                          scrub_password(message, url_) + ")");
  }
  while (PGnotify* n = PQnotifies(conn_)) {
    out.push_back({n->relname ? n->relname : "", n->extra ? n->extra : ""});
    PQfreemem(n);
  }
  return out;
}

std::string text_array(const std::vector<std::string>& items) {
  std::string out = "{";
  for (std::size_t i = 0; i < items.size(); ++i) {
    check_no_nul(items[i], "a journal entry");
    if (i > 0) out += ',';
    out += '"';
    for (const char c : items[i]) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  out += '}';
  return out;
}

}  // namespace bg::server::pg
