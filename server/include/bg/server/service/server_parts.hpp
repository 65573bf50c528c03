#pragma once
/// @file server_parts.hpp
/// gammond's composition root: the parts a game service is built from (the store, its
/// writer and reader, the computer players, the analysis queue's options, the cluster
/// node), each made from server_config in one place, server_parts.cpp, and handed to
/// game_service's constructor by make_game_service() (net/service.hpp), which main.cpp
/// calls.

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "bg/bots/analysis_queue.hpp"
#include "bg/bots/gnubg_player.hpp"
#include "bg/bots/gnubg_pool.hpp"
#include "bg/bots/long_bot_player.hpp"
#include "bg/bots/long_bot_pool.hpp"
#include "bg/server/metrics.hpp"
#include "bg/server/server_config.hpp"
#include "bg/server/store/storage_reader.hpp"
#include "bg/server/store/storage_writer.hpp"
#include "bg/server/store/store.hpp"

namespace bg::server {

/// The computer players (issue 14): GNU Backgammon's pool of processes and one player
/// per level on it, and the long nardy bots' thread and one player per level on it.
struct bot_parts {
  /// Why GNU Backgammon cannot run here (--gnubg missing or not a program); empty: it can.
  std::string gnubg_problem;
  /// GNU Backgammon's processes (started when a bot is first asked); null without gnubg.
  std::unique_ptr<bots::gnubg_pool> gnubg;
  std::map<std::string, std::unique_ptr<bots::gnubg_player>> gnubg_players;  ///< by level
  /// The long nardy bots' thread (always there: they need no program).
  std::unique_ptr<bots::long_bot_pool> long_bots;
  std::map<std::string, std::unique_ptr<bots::long_bot_player>> long_players;  ///< by level
};

/// What a game service is built from, opened from gammond's flags: the service owns
/// each part from its constructor on.
struct server_parts {
  /// The store at --db (SQLite file or PostgreSQL URL).
  std::unique_ptr<store> storage;
  /// The storage writer's thread on `storage` (group commit).
  std::unique_ptr<storage_writer> writer;
  /// The HTTP reads' thread and second connection (--read-queue); null when that
  /// connection could not be opened (the reads then run on the writer's thread).
  std::unique_ptr<storage_reader> reader;
  bot_parts computer_players;
  /// How the match analysis queue runs gnubg; nullopt when finished matches are not
  /// analysed (--analysis-workers 0, or no program at --gnubg). The service starts the
  /// queue itself, after it restored the tables, with its own handler.
  std::optional<bots::analysis_queue::options> analysis;
};

/// Opens the store at config.db with its writer and reader, and makes the computer
/// players' pools and the analysis queue's options. A reader that cannot get a
/// connection is logged (warn) and left out. Throws storage_error (storage_corrupt for
/// a damaged SQLite file) when the database cannot be opened.
server_parts open_server_parts(const server_config& config, metrics& counters);

}  // namespace bg::server
