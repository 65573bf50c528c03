// Placeholder: filled by its owner.
#include "bg/server/service.hpp"
namespace bg::server {
std::shared_ptr<service> make_game_service(const server_config&, metrics&, boost::asio::io_context&) { return nullptr; }
}  // namespace bg::server
