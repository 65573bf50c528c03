#include "bg/server/store/open_store.hpp"

#include "bg/server/store/database_url.hpp"

namespace bg::server {

std::unique_ptr<store> open_store(const std::string& db, const store_options& options) {
  if (is_postgres_url(db)) return std::make_unique<postgres_store>(db, options.postgres);
  return std::make_unique<sqlite_store>(db, options.sqlite);
}

}  // namespace bg::server
