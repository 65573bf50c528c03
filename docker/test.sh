#!/usr/bin/env bash
# docker/test.sh: proves docker/Dockerfile with podman, over 127.0.0.1 only.
#
#  1. builds the image (podman build --format docker, so HEALTHCHECK is kept)
#  2. checks the image: non-root user, environment variables read, shared libraries
#  3. runs it with a named volume on /data and -p 127.0.0.1:PORT:8080, waits for
#     /healthz and for the image's own HEALTHCHECK to pass
#  4. plays over WebSocket (docker/play_game.py, Python standard library): a 1-point
#     match to the end (its .mat served by /matches/<id>.mat) and a 3-point match left
#     in progress
#  5. stops it with SIGTERM (podman stop -t 20): exit code 0, "saved 1 table(s)"
#  6. backs the volume up while stopped (tar, as the README says)
#  7. starts a new container on the same volume: the .mat is the same, the match in
#     progress is at the same position ("restored 1 table(s)")
#  8. restores the backup into a fresh volume and checks the same there
#  9. removes its containers and volumes (the image stays unless GAMMOND_TEST_RMI=1)
#
# Prerequisites: podman (Debian 12: apt-get install podman) and Python 3. On the
# project's sandbox machines (no Docker engine, no Docker Hub, root without
# CAP_SYS_RESOURCE) the scripts in ../shared/tools/podman configure podman and build
# the debian:bookworm-slim base with debootstrap; this script runs them when podman or
# that base image is missing (GAMMOND_PODMAN_TOOLS points elsewhere).
#
# (Output is captured before grep -q: with pipefail, "cmd | grep -q" fails at random
# when grep exits early and cmd gets SIGPIPE.)
#
# Environment: GAMMOND_TEST_IMAGE (default gammond:test), GAMMOND_TEST_PORT (default:
# a free port), GAMMOND_TEST_RMI=1 (remove the image at the end),
# GAMMOND_TEST_NO_BUILD=1 (use an existing image), GAMMOND_TEST_NO_CACHE=1 (build
# from scratch: podman build --no-cache).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
t0=$(date +%s)
step_t=$t0
step() {  # step "name": prints the time the previous step took and the new step's name
  local now; now=$(date +%s)
  echo "==> [$((now - t0)) s] $*"
  step_t=$now
}
fail() { echo "docker/test.sh: FAILED: $*" >&2; exit 1; }

image="${GAMMOND_TEST_IMAGE:-gammond:test}"
tag="gammond-test-$$"
c1="$tag-1"; c2="$tag-2"; c3="$tag-3"
vol="$tag-data"; vol_restored="$tag-restored"
work=$(mktemp -d "${TMPDIR:-/tmp}/gammond-docker-test.XXXXXX")

# ---------------------------------------------------------------- podman
tools="${GAMMOND_PODMAN_TOOLS:-$here/../shared/tools/podman}"
podman_env=/tmp/podman_try/env.sh   # written by $tools/00_config.sh
pull=()
[ "${GAMMOND_TEST_NO_CACHE:-0}" = 1 ] && pull+=(--no-cache)
if [ -d "$tools" ]; then
  if [ ! -f "$podman_env" ]; then
    step "configuring podman ($tools/00_config.sh)"
    bash "$tools/00_config.sh" >/dev/null
  fi
  if ! command -v podman >/dev/null 2>&1; then
    step "installing podman ($tools/01_install.sh)"
    bash "$tools/01_install.sh" >"$work/install.log" 2>&1 || { cat "$work/install.log"; fail "podman install"; }
  fi
  # shellcheck disable=SC1090
  . "$podman_env"
  if ! podman image exists docker.io/library/debian:bookworm-slim; then
    step "building the debian:bookworm-slim base ($tools/02_base_image.sh)"
    bash "$tools/02_base_image.sh" >"$work/base.log" 2>&1 || { cat "$work/base.log"; fail "base image"; }
  fi
  pull+=(--pull=never)  # Docker Hub is not reachable here: use the local base only
fi
command -v podman >/dev/null 2>&1 || fail "podman not found (Debian: apt-get install podman)"
# Without systemd, podman cannot schedule the HEALTHCHECK's timer and says so on every
# run and rm ("unable to get systemd connection"): noise here, since the check is run
# on demand by "podman healthcheck run" below. Drop those lines only.
podman() { command podman "$@" 2> >(grep -v 'systemd connection' >&2); }
once=(--rm --no-healthcheck)   # one-off commands in the image
command -v python3 >/dev/null 2>&1 || fail "python3 not found"

cleanup() {
  local rc=$?
  set +e
  if [ $rc -ne 0 ]; then
    for c in "$c1" "$c2" "$c3"; do
      if podman container exists "$c"; then echo "--- logs of $c"; podman logs "$c" 2>&1 | tail -30; fi
    done
  fi
  podman rm -f -t 0 --ignore "$c1" "$c2" "$c3" >/dev/null
  podman volume rm -f "$vol" "$vol_restored" >/dev/null 2>&1
  if [ "${GAMMOND_TEST_RMI:-0}" = 1 ]; then podman rmi -f "$image" >/dev/null 2>&1; fi
  rm -rf "$work"
  echo "docker/test.sh: $([ $rc -eq 0 ] && echo PASSED || echo FAILED) in $(( $(date +%s) - t0 )) s"
  exit $rc
}
trap cleanup EXIT

# ---------------------------------------------------------------- helpers
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
http_get() {  # http_get PATH: body on stdout, fails unless HTTP 200
  python3 - "$port" "$1" <<'EOF'
import sys, urllib.request
# /metrics answers only loopback clients or the bearer token: from the host, the
# container sees another address, so the test's container is given a token.
req = urllib.request.Request(f"http://127.0.0.1:{sys.argv[1]}{sys.argv[2]}",
                             headers={"Authorization": "Bearer container-test-token"})
with urllib.request.urlopen(req, timeout=5) as r:
    sys.stdout.buffer.write(r.read())
EOF
}
wait_healthy() {  # wait_healthy CONTAINER: /healthz answers, then the image's HEALTHCHECK
  local c=$1
  for _ in $(seq 1 120); do
    if grep -q '"status":"ok"' <<<"$(http_get /healthz 2>/dev/null)"; then break; fi
    [ "$(podman inspect --format '{{.State.Running}}' "$c")" = true ] || fail "$c exited"
    sleep 0.5
  done
  grep -q '"status":"ok"' <<<"$(http_get /healthz)" || fail "$c: /healthz did not answer within 60 s"
  podman healthcheck run "$c" >/dev/null || fail "$c: the image's HEALTHCHECK reports unhealthy"
  echo "    /healthz ok after $(( $(date +%s) - step_t )) s; HEALTHCHECK: healthy"
}
stop_with_sigterm() {  # stop_with_sigterm CONTAINER TABLES: SIGTERM, exit 0, tables saved
  local c=$1 tables=$2 s ms code logs
  s=$(date +%s%N)
  podman stop -t 20 "$c" >/dev/null
  ms=$(( ($(date +%s%N) - s) / 1000000 ))
  code=$(podman inspect --format '{{.State.ExitCode}}' "$c")
  logs=$(podman logs "$c" 2>&1)
  echo "    stopped in $ms ms, exit code $code"
  [ "$code" = 0 ] || fail "$c exited with $code after SIGTERM (137 would mean SIGKILL)"
  grep -q 'signal 15: shutting down' <<<"$logs" || fail "$c: no 'signal 15: shutting down' in the log"
  grep -q "saved $tables table(s)" <<<"$logs" || fail "$c: no 'saved $tables table(s)' in the log"
  grep -q 'gammond stopped' <<<"$logs" || fail "$c: no 'gammond stopped' in the log"
  grep "signal 15\|saved .* table\|gammond stopped" <<<"$logs" | sed 's/^/    log: /'
}

# ---------------------------------------------------------------- 1. build
if [ "${GAMMOND_TEST_NO_BUILD:-0}" != 1 ]; then
  step "building $image (podman build --format docker -f docker/Dockerfile .)"
  if ! podman build "${pull[@]}" --format docker -f "$here/docker/Dockerfile" -t "$image" "$here" \
       >"$work/build.log" 2>&1 || ! podman image exists "$image"; then
    tail -40 "$work/build.log"; fail "podman build"
  fi
  echo "    built in $(( $(date +%s) - step_t )) s"
fi
size=$(podman image inspect --format '{{.Size}}' "$image")
echo "    image $image: $((size / 1000000)) MB"

# ---------------------------------------------------------------- 2. image checks
step "checking the image"
user=$(podman run "${once[@]}" --entrypoint id "$image" -un)
[ "$user" = gammond ] || fail "runs as '$user', not gammond"
uid=$(podman run "${once[@]}" --entrypoint id "$image" -u)
echo "    runs as $user (uid $uid)"
podman run "${once[@]}" "$image" --version | sed 's/^/    /'
help=$(podman run "${once[@]}" "$image" --help)
grep -q 'GAMMOND_TRUSTED_PROXY' <<<"$help" || fail "--help names no variables"
set +e
msg=$(podman run "${once[@]}" -e GAMMOND_PORT=70000 "$image" 2>&1); code=$?
set -e
{ [ $code = 2 ] && grep -q GAMMOND_PORT <<<"$msg"; } || fail "GAMMOND_PORT=70000 not refused (exit $code): $msg"
echo "    GAMMOND_PORT=70000 refused (exit 2): environment variables are read"
hc=$(podman image inspect --format '{{json .HealthCheck}}' "$image" 2>/dev/null || true)
{ [ -n "$hc" ] && [ "$hc" != null ]; } || fail "the image has no HEALTHCHECK (built without --format docker?)"

# ---------------------------------------------------------------- 3. run
port="${GAMMOND_TEST_PORT:-$(free_port)}"
step "running $c1 on 127.0.0.1:$port with volume $vol"
podman volume create "$vol" >/dev/null
podman run -d --name "$c1" -p "127.0.0.1:$port:8080" -v "$vol:/data" \
  -e GAMMOND_METRICS_TOKEN=container-test-token "$image" >/dev/null
wait_healthy "$c1"
metrics=$(http_get /metrics)
grep -q '^gammond_' <<<"$metrics" || fail "/metrics has no gammond_ counters"
echo "    /metrics: $(grep -c '^gammond_' <<<"$metrics") gammond_* samples"
if [ -f "$here/clients/web/index.html" ]; then
  grep -qi '<html' <<<"$(http_get /)" || fail "GET / does not serve the web client"
  echo "    GET /: the web client"
else
  echo "    (clients/web/index.html not in this tree: web client not checked)"
fi

# ---------------------------------------------------------------- 4. play
step "playing over WebSocket (docker/play_game.py play)"
python3 "$here/docker/play_game.py" play --port "$port" --out "$work" || fail "playing"

# ---------------------------------------------------------------- 5. SIGTERM
step "stopping $c1 with SIGTERM (podman stop -t 20)"
stop_with_sigterm "$c1" 1
podman rm "$c1" >/dev/null

# ---------------------------------------------------------------- 6. backup
step "backing up the stopped volume (tar, as user gammond)"
podman run "${once[@]}" -v "$vol:/data:ro" --entrypoint tar "$image" -C /data -czf - . >"$work/backup.tgz"
tar -tzf "$work/backup.tgz" | grep -v '/$' | sed 's/^/    backup: /'
grep -q 'gammond.db$' <<<"$(tar -tzf "$work/backup.tgz")" || fail "no gammond.db in the backup"

# ---------------------------------------------------------------- 7. restart
step "starting $c2 on the same volume"
podman run -d --name "$c2" -p "127.0.0.1:$port:8080" -v "$vol:/data" "$image" >/dev/null
wait_healthy "$c2"
logs=$(podman logs "$c2" 2>&1)
grep -q 'restored 1 table(s)' <<<"$logs" || fail "$c2: no 'restored 1 table(s)'"
echo "    log: $(grep -o 'restored .*' <<<"$logs")"
python3 "$here/docker/play_game.py" check --port "$port" --out "$work" || fail "after the restart"
stop_with_sigterm "$c2" 1

# ---------------------------------------------------------------- 8. restore
step "restoring the backup into a fresh volume $vol_restored and starting $c3"
podman volume create "$vol_restored" >/dev/null
podman run "${once[@]}" -i -v "$vol_restored:/data" --entrypoint tar "$image" -C /data -xzf - <"$work/backup.tgz"
podman run -d --name "$c3" -p "127.0.0.1:$port:8080" -v "$vol_restored:/data" "$image" >/dev/null
wait_healthy "$c3"
python3 "$here/docker/play_game.py" check --port "$port" --out "$work" || fail "from the backup"
stop_with_sigterm "$c3" 1

step "cleaning up"
