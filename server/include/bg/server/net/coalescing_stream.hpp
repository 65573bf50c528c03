#pragma once
/// @file coalescing_stream.hpp
/// The layer under a websocket_session's WebSocket stream that lets several messages
/// leave in one system call (issue 15).

#include <boost/asio/async_result.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/async_base.hpp>
#include <boost/beast/core/buffers_range.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/role.hpp>
#include <boost/beast/core/stream_traits.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/websocket/teardown.hpp>
#include <cstddef>
#include <string>
#include <utility>

namespace bg::server {

/// A beast::tcp_stream whose writes can be held and then written together: the next
/// layer of websocket_session's `websocket::stream`.
///
/// Beast writes one WebSocket message per `async_write`, and each would be its own
/// `sendmsg`. While hold(true), every write given to this layer is copied into a
/// pending buffer and completes at once (posted, never inline); the first write after
/// hold(false) appends its bytes too and then writes the whole buffer with one
/// `sendmsg` (more only when the socket takes it partially), completing when all of
/// it is written. A write with nothing pending and no hold goes straight to the
/// socket, uncopied.
///
/// Bytes leave in exactly the order they were written here, whoever wrote them: the
/// session's messages, or Beast's own pings, pongs and close frames, which Beast
/// already serialises with the messages (one writer at a time). So held bytes never
/// split a frame, and the WebSocket stream stays well formed.
///
/// The owner ends every run of held writes with a write that is not held (or closes the
/// connection): held bytes wait for the next write. Reads pass straight through. Not
/// thread-safe: used on the connection's strand, like the stream above it.
class coalescing_stream {
 public:
  using next_layer_type = boost::beast::tcp_stream;
  using executor_type = next_layer_type::executor_type;

  /// Takes the connected socket (its executor is the connection's strand).
  explicit coalescing_stream(boost::asio::ip::tcp::socket&& socket) : next_{std::move(socket)} {}

  /// The executor of the socket (the connection's strand).
  executor_type get_executor() noexcept { return next_.get_executor(); }
  /// The TCP stream underneath.
  next_layer_type& next_layer() noexcept { return next_; }
  /// The TCP stream underneath.
  [[nodiscard]] const next_layer_type& next_layer() const noexcept { return next_; }

  /// Holds the writes that follow (true) in the pending buffer, or lets the next write
  /// take them along (false).
  void hold(bool on) noexcept { hold_ = on; }
  /// Bytes written while held and not yet sent.
  [[nodiscard]] std::size_t pending_bytes() const noexcept { return pending_.size(); }

  /// Reads from the socket (AsyncReadStream).
  template <class MutableBufferSequence, class ReadHandler>
  auto async_read_some(const MutableBufferSequence& buffers, ReadHandler&& handler) {
    return next_.async_read_some(buffers, std::forward<ReadHandler>(handler));
  }

  /// Writes `buffers` (AsyncWriteStream): all of them are consumed on success, held or
  /// sent with whatever was pending.
  template <class ConstBufferSequence, class WriteHandler>
  auto async_write_some(const ConstBufferSequence& buffers, WriteHandler&& handler) {
    return boost::asio::async_initiate<WriteHandler, void(boost::beast::error_code, std::size_t)>(
        [this](auto&& h, const ConstBufferSequence& b) {
          using handler_type = std::decay_t<decltype(h)>;
          if (!hold_ && pending_.empty()) {
            next_.async_write_some(b, std::forward<decltype(h)>(h));
            return;
          }
          write_op<handler_type>{std::forward<decltype(h)>(h), *this, b};
        },
        handler, buffers);
  }

 private:
  /// A held write (completes at once, posted) or the write that sends everything
  /// pending with it.
  template <class Handler>
  class write_op : public boost::beast::async_base<Handler, executor_type> {
   public:
    template <class H, class ConstBufferSequence>
    write_op(H&& h, coalescing_stream& s, const ConstBufferSequence& buffers)
        : boost::beast::async_base<Handler, executor_type>(std::forward<H>(h), s.get_executor()),
          s_{s},
          bytes_{boost::asio::buffer_size(buffers)} {
      if (s.pending_.empty()) s.pending_.reserve(initial_capacity);
      for (const auto& b : boost::beast::buffers_range_ref(buffers))
        s.pending_.append(static_cast<const char*>(b.data()), b.size());
      if (s.hold_) {
        this->complete(false, boost::beast::error_code{}, bytes_);
        return;
      }
      s.sending_.swap(s.pending_);
      boost::asio::async_write(s.next_, boost::asio::buffer(s.sending_), std::move(*this));
    }

    void operator()(boost::beast::error_code ec, std::size_t /*sent*/) {
      // Freed, not kept: an idle connection holds no write buffer.
      std::string{}.swap(s_.sending_);
      this->complete_now(ec, ec ? std::size_t{0} : bytes_);
    }

   private:
    coalescing_stream& s_;
    std::size_t bytes_;
  };

  static constexpr std::size_t initial_capacity = 4096;

  next_layer_type next_;
  std::string pending_;  // held bytes, in the order written
  std::string sending_;  // the bytes of the write in flight
  bool hold_ = false;
};

/// Beast's customisation point: closes the socket (a WebSocket timeout).
inline void beast_close_socket(coalescing_stream& s) {
  boost::beast::close_socket(s.next_layer());
}

/// Beast's customisation point: the TCP teardown after a WebSocket close.
inline void teardown(boost::beast::role_type role, coalescing_stream& s,
                     boost::beast::error_code& ec) {
  using boost::beast::websocket::teardown;
  teardown(role, s.next_layer(), ec);
}

/// Beast's customisation point: the TCP teardown after a WebSocket close.
template <class TeardownHandler>
void async_teardown(boost::beast::role_type role, coalescing_stream& s, TeardownHandler&& handler) {
  using boost::beast::websocket::async_teardown;
  async_teardown(role, s.next_layer(), std::forward<TeardownHandler>(handler));
}

}  // namespace bg::server
