#include "bg/server/players/players.hpp"

#include <algorithm>

#include "bg/protocol/codec.hpp"
#include "bg/server/players/names.hpp"
#include "players/name_errors.hpp"

namespace bg::server {

void players::open(const std::shared_ptr<client>& c) {
  session s;
  s.who = c;
  s.address = c->address();
  sessions_[c->id()] = std::move(s);
}

players::session* players::find(std::uint64_t id) {
  const auto it = sessions_.find(id);
  return it == sessions_.end() ? nullptr : &it->second;
}

players::welcomed players::take_name(session& s, std::uint64_t id, const std::string& name,
                                     const std::string& key, bool resumed) {
  welcomed w;
  w.name = name;
  w.key = key;
  w.resumed = resumed;
  w.registered = registered_.count(key) != 0;
  // A resumed name may still be said by a stale connection: the new one wins.
  if (const auto it = online_.find(key); it != online_.end() && it->second != id) {
    const auto old = sessions_.find(it->second);
    if (old != sessions_.end()) {
      w.replaced = old->second.who.lock();
      w.replaced_id = it->second;
      w.replaced_tables = std::move(old->second.tables);
      old->second.tables.clear();
      old->second.name.clear();
      old->second.key.clear();
      old->second.registered = false;
    }
  }
  s.name = w.name;
  s.key = key;
  s.registered = w.registered;
  online_[key] = id;
  lingering_.erase(key);  // said again: its resume window (if any) is over
  note_lookalike(key, w.name);
  // Issue 13: the name's ignore list lives as long as the name is in use.
  auto& list = ignores_[key];
  if (!list) list = std::make_shared<ignore_list>(max_ignored_);
  s.ignores = list;
  // The last address of the name, for /ban; the oldest name is forgotten first.
  if (remembered_addresses_ > 0) {
    const auto [it, fresh] = last_address_.insert_or_assign(key, s.address);
    if (fresh) {
      address_order_.push_back(key);
      while (address_order_.size() > remembered_addresses_) {
        last_address_.erase(address_order_.front());
        address_order_.pop_front();
      }
    }
  }
  // A new token on every hello and every resume: the one just used stops working.
  w.token = tokens_.issue(key, w.name);
  if (const auto h = held_.find(key); h != held_.end()) w.seated = h->second;
  return w;
}

engine::result<players::welcomed> players::hello(std::uint64_t id, const std::string& name,
                                                 const std::string& resume_token,
                                                 std::size_t max_name_bytes) {
  auto& s = sessions_[id];
  if (!s.name.empty())
    return protocol::said_error("already_hello", "service.already_hello", {{"name", s.name}});
  if (s.hello_pending) return protocol::said_error("already_hello", "service.hello_pending");
  std::string key;
  std::string shown = name;
  std::string lookalike;
  bool resumed = false;
  if (!resume_token.empty()) {
    if (const auto holder = tokens_.find(resume_token)) {
      shown = holder->name;
      key = holder->key;
      resumed = true;
    } else if (name.empty()) {
      return protocol::said_error("bad_resume", "service.bad_resume");
    }
  }
  if (!resumed) {
    if (auto why = name_error(name, max_name_bytes)) return std::move(*why);
    key = name_key(name);
    // A registered name needs its password (or a token), whoever is using it now.
    if (registered_.count(key) != 0)
      return protocol::said_error("name_registered", "service.name_registered", {{"name", name}});
    // A name is in use while it is connected or holds a seat (case-insensitively).
    if (online_.count(key) != 0 || held_.count(key) != 0 || tokens_.has(key) ||
        claimed_.count(key) != 0)
      return protocol::said_error("name_taken", "service.name_in_use", {{"name", name}});
    // Nor may it look like one (a Cyrillic "аӏісе" beside "alice").
    lookalike = name_lookalike_key(name);
    if (looks_taken(key, lookalike))
      return protocol::said_error("name_confusable", "service.name_confusable", {{"name", name}});
  } else if (const auto c = claimed_.find(key); c != claimed_.end() && c->second != id) {
    return protocol::said_error("name_taken", "service.login_pending", {{"name", shown}});
  }
  if (!lookalike.empty()) note_lookalike(key, shown, std::move(lookalike));
  return take_name(s, id, shown, key, resumed);
}

engine::result<std::string> players::begin_claim(std::uint64_t id, const std::string& name,
                                                 bool for_register, std::size_t max_name_bytes) {
  auto& s = sessions_[id];
  if (!s.name.empty())
    return protocol::said_error("already_hello", "service.already_hello", {{"name", s.name}});
  if (s.hello_pending) return protocol::said_error("already_hello", "service.hello_pending");
  if (auto why = name_error(name, max_name_bytes)) return std::move(*why);
  std::string key = name_key(name);
  if (claimed_.count(key) != 0)
    return protocol::said_error("name_taken", "service.login_pending", {{"name", name}});
  if (for_register && (online_.count(key) != 0 || held_.count(key) != 0 || tokens_.has(key) ||
                       registered_.count(key) != 0))
    return protocol::said_error("name_taken", "service.name_registered_or_in_use",
                                {{"name", name}});
  if (for_register) {
    auto lookalike = name_lookalike_key(name);
    if (looks_taken(key, lookalike))
      return protocol::said_error("name_confusable", "service.name_confusable", {{"name", name}});
    note_lookalike(key, name, std::move(lookalike));
  }
  claimed_[key] = id;
  s.hello_pending = true;
  s.claim = key;
  return key;
}

void players::end_claim(std::uint64_t id) {
  const auto it = sessions_.find(id);
  if (it == sessions_.end() || !it->second.hello_pending) return;
  const std::string key = std::move(it->second.claim);
  it->second.claim.clear();
  it->second.hello_pending = false;
  const auto c = claimed_.find(key);
  if (c != claimed_.end() && c->second == id) claimed_.erase(c);
  release_if_unused(key);
}

engine::result<players::welcomed> players::login(std::uint64_t id, const std::string& key,
                                                 const std::string& name) {
  end_claim(id);
  const auto it = sessions_.find(id);
  if (it == sessions_.end()) return protocol::said_error("bad_resume", "service.connection_gone");
  if (!it->second.name.empty())
    return protocol::said_error("already_hello", "service.already_hello",
                                {{"name", it->second.name}});
  return take_name(it->second, id, name, key, false);
}

std::optional<players::rotated> players::rotate_token(std::uint64_t id) {
  const auto it = sessions_.find(id);
  if (it == sessions_.end() || it->second.name.empty()) return std::nullopt;
  const session& s = it->second;
  rotated r;
  r.token = tokens_.issue(s.key, s.name);
  for (const auto& [other, os] : sessions_)
    if (other != id && os.key == s.key)
      if (auto c = os.who.lock()) r.others.push_back(std::move(c));
  if (const auto h = held_.find(s.key); h != held_.end()) r.seated = h->second;
  return r;
}

std::optional<players::session> players::close(std::uint64_t id) {
  end_claim(id);
  const auto it = sessions_.find(id);
  if (it == sessions_.end()) return std::nullopt;
  session gone = std::move(it->second);
  sessions_.erase(it);
  if (!gone.key.empty()) {
    const auto on = online_.find(gone.key);
    if (on != online_.end() && on->second == id) {
      online_.erase(on);
      // The token outlives the connection only while the name holds a seat in a match
      // (when that seat is released later, holds_changed() drops it), or, in a cluster,
      // for the resume window (issue 26): end_linger() drops it then.
      if (resume_window_.count() > 0 && held_.count(gone.key) == 0 &&
          lingering_.size() < max_lingering_ && tokens_.has(gone.key))
        lingering_[gone.key] = clock_type::now() + resume_window_;
      release_if_unused(gone.key);
    }
  }
  return gone;
}

void players::holds_changed(const std::string& table, const std::vector<std::string>& before,
                            const std::vector<std::string>& after) {
  for (const auto& n : after) {
    const std::string key = name_key(n);
    held_[key].insert(table);
    note_lookalike(key, n);
  }
  for (const auto& n : before) {
    if (std::find(after.begin(), after.end(), n) != after.end()) continue;
    const std::string key = name_key(n);
    const auto it = held_.find(key);
    if (it == held_.end()) continue;
    it->second.erase(table);
    if (it->second.empty()) held_.erase(it);
    release_if_unused(key);
  }
}

bool players::restore_hold(const std::string& table, const std::string& name,
                           const std::string& token_hash) {
  const std::string key = name_key(name);
  held_[key].insert(table);
  note_lookalike(key, name);
  if (token_hash.empty() || (online_.count(key) != 0 && tokens_.has(key))) return true;
  return tokens_.adopt(key, name, token_hash);
}

std::optional<std::string> players::token_hash_of(const std::string& name) const {
  return tokens_.hash_of(name_key(name));
}

void players::release_if_unused(const std::string& key) {
  if (key.empty() || online_.count(key) != 0 || held_.count(key) != 0 || claimed_.count(key) != 0 ||
      lingering_.count(key) != 0)
    return;
  tokens_.drop(key);
  ignores_.erase(key);
  if (const auto l = lookalike_of_.find(key); l != lookalike_of_.end()) {
    if (const auto u = in_use_lookalikes_.find(l->second); u != in_use_lookalikes_.end()) {
      u->second.erase(key);
      if (u->second.empty()) in_use_lookalikes_.erase(u);
    }
    lookalike_of_.erase(l);
  }
  if (released_) released_(key);
}

void players::add_registered(const std::string& key, const std::string& name) {
  registered_.insert(key);
  registered_lookalikes_[name_lookalike_key(name.empty() ? key : name)].insert(key);
}

void players::note_lookalike(const std::string& key, const std::string& name,
                             std::string lookalike) {
  if (key.empty() || lookalike_of_.count(key) != 0) return;
  if (lookalike.empty()) lookalike = name_lookalike_key(name);
  in_use_lookalikes_[lookalike].insert(key);
  lookalike_of_.emplace(key, std::move(lookalike));
}

bool players::looks_taken(const std::string& key, const std::string& lookalike) const {
  for (const auto* index : {&in_use_lookalikes_, &registered_lookalikes_}) {
    const auto it = index->find(lookalike);
    if (it == index->end()) continue;
    for (const auto& other : it->second)
      if (other != key) return true;
  }
  return false;
}

bool players::may_create(const session& s, std::size_t limit) const {
  const auto by_key = created_by_key_.find(s.key);
  const auto by_address = created_by_address_.find(s.address);
  return (by_key == created_by_key_.end() || by_key->second < limit) &&
         (by_address == created_by_address_.end() || by_address->second < limit);
}

void players::created(const std::string& table, const session& s) {
  ++created_by_key_[s.key];
  ++created_by_address_[s.address];
  creators_[table] = creator{s.key, s.address};
}

void players::forget_table(const std::string& table) {
  const auto it = creators_.find(table);
  if (it == creators_.end()) return;
  const auto drop = [](auto& counts, const std::string& k) {
    const auto c = counts.find(k);
    if (c != counts.end() && --c->second == 0) counts.erase(c);
  };
  drop(created_by_key_, it->second.key);
  drop(created_by_address_, it->second.address);
  creators_.erase(it);
}

void players::revoke(std::uint64_t id) {
  const auto it = sessions_.find(id);
  if (it == sessions_.end() || it->second.key.empty()) return;
  session& s = it->second;
  const std::string key = std::move(s.key);
  s.key.clear();
  s.name.clear();
  s.registered = false;
  s.hello_pending = false;
  s.ignores.reset();
  if (const auto on = online_.find(key); on != online_.end() && on->second == id) online_.erase(on);
  release_if_unused(key);
}

std::optional<players::in_use> players::name_in_use(const std::string& key) const {
  in_use u;
  u.key = key;
  const auto on = online_.find(key);
  u.connected = on != online_.end();
  if (!u.connected && held_.count(key) == 0 && lingering_.count(key) == 0) return std::nullopt;
  if (const auto h = tokens_.holder_of(key)) u.name = h->name;
  if (u.connected)
    if (const auto s = sessions_.find(on->second); s != sessions_.end()) u.name = s->second.name;
  if (u.name.empty()) return std::nullopt;  // a seat restored without a token: unknown here
  u.token_hash = tokens_.hash_of(key).value_or("");
  return u;
}

std::vector<players::in_use> players::names_in_use() const {
  std::vector<in_use> out;
  for (const auto& [key, id] : online_)
    if (auto u = name_in_use(key)) out.push_back(std::move(*u));
  for (const auto& [key, tables] : held_)
    if (online_.count(key) == 0)
      if (auto u = name_in_use(key)) out.push_back(std::move(*u));
  for (const auto& [key, until] : lingering_)
    if (online_.count(key) == 0 && held_.count(key) == 0)
      if (auto u = name_in_use(key)) out.push_back(std::move(*u));
  return out;
}

std::vector<std::string> players::online_names() const {
  std::vector<std::string> out;
  out.reserve(online_.size());
  for (const auto& [key, id] : online_)
    if (const auto s = sessions_.find(id); s != sessions_.end()) out.push_back(s->second.name);
  return out;
}

std::vector<std::shared_ptr<client>> players::everyone() const {
  std::vector<std::shared_ptr<client>> all;
  all.reserve(sessions_.size());
  for (const auto& [id, s] : sessions_)
    if (!s.name.empty())
      if (auto c = s.who.lock()) all.push_back(std::move(c));
  return all;
}

}  // namespace bg::server

namespace bg::server {

void players::set_limits(std::size_t max_ignored, std::size_t remembered_addresses) {
  max_ignored_ = max_ignored;
  remembered_addresses_ = remembered_addresses;
}

std::vector<std::shared_ptr<client>> players::everyone_hearing(
    const std::string& sender_key) const {
  std::vector<std::shared_ptr<client>> all;
  all.reserve(sessions_.size());
  for (const auto& [id, s] : sessions_) {
    if (s.name.empty() || (s.ignores && s.ignores->ignores(sender_key))) continue;
    if (auto c = s.who.lock()) all.push_back(std::move(c));
  }
  return all;
}

std::vector<std::shared_ptr<client>> players::connections_of(const std::string& key) const {
  std::vector<std::shared_ptr<client>> out;
  for (const auto& [id, s] : sessions_)
    if (s.key == key)
      if (auto c = s.who.lock()) out.push_back(std::move(c));
  return out;
}

std::vector<std::string> players::addresses_of(const std::string& key) const {
  std::vector<std::string> out;
  const auto add = [&out](const std::string& a) {
    if (!a.empty() && std::find(out.begin(), out.end(), a) == out.end()) out.push_back(a);
  };
  for (const auto& [id, s] : sessions_)
    if (s.key == key) add(s.address);
  if (const auto it = last_address_.find(key); it != last_address_.end()) add(it->second);
  return out;
}

std::shared_ptr<ignore_list> players::ignores_of(const std::string& key) const {
  const auto it = ignores_.find(key);
  return it == ignores_.end() ? nullptr : it->second;
}

}  // namespace bg::server
