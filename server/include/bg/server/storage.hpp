#pragma once
/// @file storage.hpp
/// SQLite persistence: table snapshots (so a restart restores every table) and
/// finished matches (for the record and the .mat export).

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bg/server/match_record.hpp"

struct sqlite3;

namespace bg::server {

/// A storage failure (cannot open, disk full, corrupt file). Thrown by storage; the
/// server logs it at the session/table boundary.
class storage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One SQLite database file in WAL mode (synchronous=NORMAL: a committed write
/// survives kill -9 of gammond). Thread-safe: one connection behind a mutex.
class storage {
 public:
  /// Opens or creates the file at `path` and its schema. Throws storage_error.
  explicit storage(const std::string& path);
  ~storage();
  storage(const storage&) = delete;
  storage& operator=(const storage&) = delete;

  /// Inserts or replaces the snapshot (JSON text) of table `name`; durable on return.
  void save_table(std::string_view name, std::string_view snapshot_json);
  /// Forgets table `name`.
  void delete_table(std::string_view name);
  /// Every saved table: (name, snapshot JSON), in name order.
  [[nodiscard]] std::vector<std::pair<std::string, std::string>> load_tables();

  /// Stores a finished (or abandoned) match and returns its id (> 0).
  std::int64_t save_match(const match_record& record);
  /// The match with `id`, or nullopt.
  [[nodiscard]] std::optional<match_record> load_match(std::int64_t id);
  /// How many matches are stored.
  [[nodiscard]] std::int64_t match_count();

 private:
  std::mutex mutex_;
  sqlite3* db_ = nullptr;
};

}  // namespace bg::server
