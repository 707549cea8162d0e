#!/bin/sh
# Run once by the postgres image when it initialises a new cluster: lets a streaming replica (the
# `postgres-replica` service of docker-compose.yml's `scale` profile) connect for replication with the
# same password authentication as clients. The image's own pg_hba.conf entry names `all` databases,
# which does not cover replication connections.
set -e
echo "host replication all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
