#include "bg/engine/position.hpp"

#include <cstring>

#include "zobrist.hpp"

namespace bg::engine {

position position::starting(variant v) noexcept {
  position p;
  for (auto* side : {&p.mover_, &p.opponent_}) {
    side->fill(0);
    if (v == variant::standard) {
      (*side)[24] = 2;
      (*side)[13] = 5;
      (*side)[8] = 3;
      (*side)[6] = 5;
    } else {
      (*side)[24] = checkers_per_side;
    }
  }
  return p;
}

std::optional<position> position::from_sides(const side_checkers& mover,
                                             const side_checkers& opponent, variant v) {
  position p;
  p.mover_.fill(0);
  p.opponent_.fill(0);
  int on_board[2] = {0, 0};
  for (int i = 1; i <= bar_index; ++i) {
    const auto u = static_cast<std::size_t>(i);
    p.mover_[u] = mover[u];
    p.opponent_[u] = opponent[u];
    on_board[0] += mover[u];
    on_board[1] += opponent[u];
  }
  if (on_board[0] > checkers_per_side || on_board[1] > checkers_per_side) return std::nullopt;
  p.mover_[off_index] = static_cast<std::uint8_t>(checkers_per_side - on_board[0]);
  p.opponent_[off_index] = static_cast<std::uint8_t>(checkers_per_side - on_board[1]);
  if (!p.is_ok(v)) return std::nullopt;
  return p;
}

side_checkers position::mover_side() const noexcept {
  side_checkers s{};
  std::memcpy(s.data(), mover_.data(), s.size());
  return s;
}

side_checkers position::opponent_side() const noexcept {
  side_checkers s{};
  std::memcpy(s.data(), opponent_.data(), s.size());
  return s;
}

namespace {
int pips(const std::array<std::uint8_t, 32>& side) noexcept {
  int total = 0;
  for (int i = 1; i <= bar_index; ++i) total += i * side[static_cast<std::size_t>(i)];
  return total;
}
}  // namespace

int position::mover_pip_count() const noexcept {
  return pips(mover_);
}
int position::opponent_pip_count() const noexcept {
  return pips(opponent_);
}

bool position::is_ok(variant v) const noexcept {
  int total[2] = {0, 0};
  for (int i = 0; i <= bar_index; ++i) {
    total[0] += mover_[static_cast<std::size_t>(i)];
    total[1] += opponent_[static_cast<std::size_t>(i)];
  }
  if (total[0] != checkers_per_side || total[1] != checkers_per_side) return false;
  for (std::size_t i = 26; i < 32; ++i)
    if (mover_[i] != 0 || opponent_[i] != 0) return false;
  for (int p = 1; p <= 24; ++p) {
    if (mover_[static_cast<std::size_t>(p)] != 0 &&
        opponent_[static_cast<std::size_t>(opponent_point(v, p))] != 0)
      return false;
  }
  if (v == variant::long_nardy && (mover_[bar_index] != 0 || opponent_[bar_index] != 0))
    return false;
  return true;
}

std::uint64_t hash_of(const position& p) noexcept {
  return detail::zobrist_hash(p);
}

}  // namespace bg::engine
