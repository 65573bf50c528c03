#include "bg/engine/board.hpp"

namespace bg::engine {

board_view to_board(const position& p, side mover, variant v) {
  board_view b;
  const side other = opponent_of(mover);
  auto place = [&](side s, int own, int count) {
    const int sign = s == side::red ? 1 : -1;
    b.points[static_cast<std::size_t>(board_point(v, s, own) - 1)] += sign * count;
  };
  for (int own = 1; own <= 24; ++own) {
    place(mover, own, p.mover(own));
    place(other, own, p.opponent(own));
  }
  const auto m = static_cast<std::size_t>(index_of(mover));
  const auto o = static_cast<std::size_t>(index_of(other));
  b.bar[m] = p.mover(bar_index);
  b.bar[o] = p.opponent(bar_index);
  b.off[m] = p.mover(off_index);
  b.off[o] = p.opponent(off_index);
  b.pips[m] = p.mover_pip_count();
  b.pips[o] = p.opponent_pip_count();
  return b;
}

std::optional<position> from_board(const board_view& b, side mover, variant v) {
  side_checkers sides[2]{};  // [red, black]
  for (int board = 1; board <= 24; ++board) {
    const int n = b.points[static_cast<std::size_t>(board - 1)];
    if (n == 0) continue;
    const side s = n > 0 ? side::red : side::black;
    const int count = n > 0 ? n : -n;
    if (count > checkers_per_side) return std::nullopt;
    sides[index_of(s)][static_cast<std::size_t>(own_point(v, s, board))] =
        static_cast<std::uint8_t>(count);
  }
  for (int i = 0; i < 2; ++i) {
    if (b.bar[static_cast<std::size_t>(i)] < 0 || b.bar[static_cast<std::size_t>(i)] > 15)
      return std::nullopt;
    sides[i][bar_index] = static_cast<std::uint8_t>(b.bar[static_cast<std::size_t>(i)]);
  }
  const side other = opponent_of(mover);
  return position::from_sides(sides[index_of(mover)], sides[index_of(other)], v);
}

}  // namespace bg::engine
