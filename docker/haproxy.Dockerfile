# HAProxy for docker/compose.cluster.yaml, from Debian 12's own package (2.6; the
# project's rule: everything from Debian; nothing is pulled from Docker Hub but the
# debian:bookworm-slim base).
#
#   docker build -f docker/haproxy.Dockerfile -t gammond-haproxy docker
#
# The configuration is not in the image: the compose file mounts docker/haproxy.cfg on
# /etc/haproxy/haproxy.cfg, so a change needs a reload, not a build.
FROM debian:bookworm-slim

# A policy-rc.d that says "no" keeps the package's scripts from starting HAProxy with
# Debian's sample configuration during the build.
RUN set -eux; \
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d; \
    apt-get update; \
    apt-get install -y --no-install-recommends haproxy; \
    rm -f /usr/sbin/policy-rc.d; \
    rm -rf /var/lib/apt/lists/*; \
    haproxy -v

# The package's unprivileged user: docker/haproxy.cfg binds ports above 1024 only.
USER haproxy
EXPOSE 8080 8404
# Master-worker (-W) in the foreground (-db), logging to stdout (haproxy.cfg). SIGUSR2
# reloads the configuration in place (docker compose kill -s SIGUSR2 haproxy): the
# container, and so its address on the compose network, stays; SIGTERM stops it.
STOPSIGNAL SIGTERM
ENTRYPOINT ["haproxy", "-W", "-db", "-f", "/etc/haproxy/haproxy.cfg"]
