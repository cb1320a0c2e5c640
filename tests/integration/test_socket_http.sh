#!/usr/bin/env bash
# Plain HTTP/1.1 over blocking sockets under the preload: the cases of socket_cases.sh over http.
source "$(dirname "$0")/../lib.sh"
SCHEME=http
source "$(dirname "$0")/socket_cases.sh"
lg_done
