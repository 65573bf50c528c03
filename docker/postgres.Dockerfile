# PostgreSQL 15 for docker/compose.cluster.yaml, from Debian 12's own packages (the
# project's rule: everything from Debian; nothing is pulled from Docker Hub but the
# debian:bookworm-slim base).
#
#   docker build -f docker/postgres.Dockerfile -t gammond-postgres docker
#
# docker/postgres-entrypoint initialises the data directory (the volume on
# /var/lib/postgresql/data) on the first start: initdb as user postgres, then the role
# and the database named by POSTGRES_USER / POSTGRES_DB with POSTGRES_PASSWORD
# (scram-sha-256). Later starts find it initialised and just run the server.
FROM debian:bookworm-slim

# postgresql-common first, told not to create Debian's default cluster (15/main under
# /var/lib/postgresql/15): the entrypoint makes its own in the volume. A policy-rc.d
# that says "no" keeps the packages' scripts from starting services during the build.
RUN set -eux; \
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d; \
    apt-get update; \
    apt-get install -y --no-install-recommends postgresql-common; \
    sed -ri 's/^#?\s*create_main_cluster\s*=.*/create_main_cluster = false/' \
        /etc/postgresql-common/createcluster.conf; \
    apt-get install -y --no-install-recommends postgresql-15; \
    rm -f /usr/sbin/policy-rc.d; \
    rm -rf /var/lib/apt/lists/*; \
    test ! -e /var/lib/postgresql/15/main

# initdb, postgres, pg_ctl, pg_isready of version 15 without Debian's pg_wrapper.
ENV PATH=/usr/lib/postgresql/15/bin:$PATH \
    PGDATA=/var/lib/postgresql/data
RUN install -d -o postgres -g postgres -m 0700 "$PGDATA"
COPY postgres-entrypoint /usr/local/bin/postgres-entrypoint

VOLUME ["/var/lib/postgresql/data"]
EXPOSE 5432
# SIGINT is PostgreSQL's "fast" shutdown (disconnect the clients, checkpoint, exit);
# SIGTERM's "smart" one would wait for gammond's connections to close by themselves.
STOPSIGNAL SIGINT
# Starts as root only to fix the volume's owner; everything else runs as postgres.
ENTRYPOINT ["/usr/local/bin/postgres-entrypoint"]
