# llmgate: one Makefile builds the preload library, the llmgate command, the mock provider and the tests.
PREFIX  ?= /usr/local
SHAREDIR := $(PREFIX)/share/llmgate
DESTDIR ?=
CC      ?= cc
B       := build

PKG_CFLAGS := $(shell pkg-config --cflags libcurl libcjson 2>/dev/null)
WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-unused-parameter
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -D_GNU_SOURCE $(WARN) -Iinclude -Isrc $(PKG_CFLAGS) -fPIC -fvisibility=hidden
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

CORE_SRC  := $(wildcard src/util/*.c src/conf/*.c src/classify/*.c src/providers/*.c src/limiter/*.c src/gate/*.c \
                       src/store/*.c src/translate/*.c src/spend/*.c)
# The library's own: the front ends' shared part (src/front: HTTP/1.1 framing, a connection's exchange
# driver, answers) and the interposed hooks, in wings (src/hook/base, curl, multi, sock, tls).
HOOK_SRC  := $(wildcard src/front/*.c src/hook/*/*.c)
CLI_SRC   := $(wildcard src/cli/*.c)
# The relay (llmgate relay): a program of the CLI's own, on the front and the engine linked directly
# (never preloaded), with its listener, TLS and local CA in src/relay.
RELAY_SRC := $(wildcard src/relay/*.c)
FRONT_SRC := $(wildcard src/front/*.c)
MOCK_SRC  := $(wildcard src/mock/*.c)
UNIT_SRC  := $(wildcard tests/unit/test_*.c)
CLIENT_SRC := $(wildcard tests/clients/*.c)

CORE_OBJ  := $(CORE_SRC:%.c=$(B)/obj/%.o)
HOOK_OBJ  := $(HOOK_SRC:%.c=$(B)/obj/%.o)
CLI_OBJ   := $(CLI_SRC:%.c=$(B)/obj/%.o) $(RELAY_SRC:%.c=$(B)/obj/%.o)
FRONT_OBJ := $(FRONT_SRC:%.c=$(B)/obj/%.o)
MOCK_OBJ  := $(MOCK_SRC:%.c=$(B)/obj/%.o)
SAN_CORE_OBJ := $(CORE_SRC:%.c=$(B)/san/%.o)
UNIT_BIN  := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
CLIENT_BIN := $(CLIENT_SRC:tests/clients/%.c=$(B)/clients/%) $(CLIENT_SRC:tests/clients/%.c=$(B)/clients/asan_%)

CORE_LIBS := -lcjson -lcrypto -lpthread -ldl -lm

HOOK_LIBS := -lhttp_parser
LIB  := $(B)/libllmgate.so
CLI  := $(B)/llmgate
MOCK := $(B)/llmgate-mock

DEPS_PKGS := build-essential pkg-config libcurl4-openssl-dev libcjson-dev uthash-dev libmicrohttpd-dev \
             libcmocka-dev libhttp-parser-dev libhiredis-dev libssl-dev zlib1g-dev curl openssl python3 ca-certificates
# clang with libFuzzer (its recommended compiler-rt): the fuzz harnesses, built for the test suite's smoke
DEPS_PKGS += clang
# Python HTTP hosts of the socket/TLS tests (Debian's /usr/bin/python3)
DEPS_PKGS += python3-requests python3-httpx wget
# hosts of the multi-API and RTLD_DEEPBIND tests (pycurl's CurlMulti, PHP's curl extension, git over http,
# an HTTP/2 server for curl -Z multiplexing)
DEPS_PKGS += python3-pycurl php-cli php-curl git nghttp2-server
# HTTP/2-capable hosts and a provider front that offers h2 (test_h2_clients, test_server_matrix): httpx's
# HTTP/2 (python3-h2), gnutls-cli (a GnuTLS host offering h2), Debian's nginx as a TLS 1.3 terminator
DEPS_PKGS += python3-h2 gnutls-bin nginx-light
# The redis store backend: its tests start their own redis-server; hiredis is dlopen'ed, never linked.
DEPS_PKGS += redis-server libhiredis-dev
# Perl hosts of test_other_hosts (LWP over http and https; HTTP::Tiny is core Perl)
DEPS_PKGS += libwww-perl libio-socket-ssl-perl liblwp-protocol-https-perl
# Ruby's Net::HTTP, the host of test_ruby_host (its sockets; over https its openssl extension on libssl)
DEPS_PKGS += ruby
# asyncio hosts of the event-loop tests (aiohttp)
DEPS_PKGS += python3-aiohttp
# PHP's Guzzle, the HTTP client PHP sites call LLM APIs with (test_guzzle: its curl, multi and stream handlers)
DEPS_PKGS += php-guzzlehttp-guzzle
# programs with their own TLS, gated through the relay in test_relay: Go's net/http client, built in the
# test (the toolchain: ~1 min to install; the build itself takes seconds), and Node.js's fetch and https
DEPS_PKGS += golang-go nodejs
# Java's HttpClient through the relay (test_relay): a JDK (javac builds the client in the test; keytool
# makes the trust store llmgate run gives a Java program)
DEPS_PKGS += default-jdk-headless
# a rustls client through the relay (test_relay), built offline from Debian's packaged crates (cargo is
# pointed at /usr/share/cargo/registry: crates.io is never asked)
DEPS_PKGS += cargo librust-rustls-dev librust-rustls-native-certs-dev
# make bench's footprint figures (callgrind: instructions and code lines per request)
DEPS_PKGS += valgrind
# Debian's headless Chromium: test_spend opens `llmgate usage --html` in it (a screenshot, the DOM it drew)
DEPS_PKGS += chromium
# wget2, the host of test_wget2 (non-blocking sockets opened with TCP Fast Open, GnuTLS on them), the
# nginx it talks to there before the mock (its "Connection: keep-alive" makes wget2 reuse a connection),
# and gnutls-cli (gnutls-bin) for GnuTLS's own Fast Open transport
DEPS_PKGS += wget2 nginx-light gnutls-bin

# The version is the one of the newest debian/changelog entry (one place to change it).
VERSION := $(shell head -n1 debian/changelog | tr '()' '  ' | awk '{print $$2}' | cut -d- -f1)

.PHONY: all test bench demo install uninstall deb clean deps unit clients asan fuzz fuzz-build mutate
.SECONDARY:
all: $(LIB) $(CLI) $(MOCK)

$(B)/obj/%.o: %.c $(wildcard include/llmgate/*.h) | $(B)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(B)/obj/src/cli/version.o: CFLAGS += -DLG_VERSION='"$(VERSION)"'
# The price table installed with the library (data/prices.json), read when the config names no other.
$(B)/obj/src/conf/spend.o $(B)/san/src/conf/spend.o: CFLAGS += -DLG_PRICES_DEFAULT='"$(SHAREDIR)/prices.json"'

$(B)/obj/src/cli/version.o: debian/changelog

# Each function of the library starts a 64-byte code line: a provider request runs ~100 of them once, cold
# in the instruction cache, and a function's first bytes then share no line with a neighbour's unused code
# (callgrind: 493 -> 455 lines touched per request, the same instructions; 4 % more text). A function
# shorter than the padding it would need is not aligned (-flimit-function-alignment): 5 lines fewer.
LIB_CFLAGS := -falign-functions=64 -flimit-function-alignment

# The library is linked with link-time optimisation: the engine's small cross-file functions (store steps,
# window and charge arithmetic, the classifier's helpers) inline into their callers. The objects are fat
# (they keep their machine code too), so the CLI and the mock link them as before.
LTO := -flto=auto
LIB_CFLAGS += $(LTO) -ffat-lto-objects

# Profile feedback (PGO=1, the default): the library's objects are compiled against a profile of a training
# run, so that the code a request runs is laid out together, apart from what it skips. A provider request
# runs ~4.8 k distinct instructions of the library, each once, cold: they lie on 449 code lines in 32 pages
# (tests/bench/footprint.sh), and where the kernel empties the TLB at every system call (PTI without PCID,
# as on the machines this was measured on) each page costs a page walk again after each of the request's
# eleven system calls. With the profile: 366 lines in 21 pages. The
# library is first built instrumented in $(B)/train, with a mock provider linked from those objects;
# tests/bench/train.sh runs the usual requests through them on loopback, and their counts are written next
# to the objects below (-dumpdir: a profile names a file's static functions by the object they are compiled
# to). Code the training does not run is optimised as without a profile (-fprofile-partial-training). A
# failed training leaves no counts: the library is then built as without PGO. PGO=0 builds without it, for
# quicker edit-build cycles (a changed source otherwise changes the profile, and with it every object of the
# library; `make clean` when switching). The profile's own notes are warnings, not errors: the same sources
# were compiled with -Werror just before, for the training.
PGO ?= 1
ifeq ($(PGO),1)
TRAIN      := $(B)/train
# No value profiles (their top-N lists): the trained processes write their counts from a destructor through
# libc's I/O, which our own hooks (write, close) serve, instrumented too; a list they change while it is
# being written made libgcov abort the process.
PGO_VALUES  := -fno-profile-values
TRAIN_FLAGS := -fprofile-generate $(PGO_VALUES)
TRAIN_CORE := $(CORE_SRC:%.c=$(TRAIN)/%.o)
TRAIN_HOOK := $(HOOK_SRC:%.c=$(TRAIN)/%.o)
PROFILE    := $(TRAIN)/profile.stamp
$(TRAIN)/%.o: %.c $(wildcard include/llmgate/*.h) | $(B)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LIB_CFLAGS) $(TRAIN_FLAGS) -dumpdir $(B)/obj/$(dir $<) -MMD -MP -c $< -o $@
$(TRAIN)/libllmgate.so: $(TRAIN_CORE) $(TRAIN_HOOK) src/hook/base/exports.map
	$(CC) $(CFLAGS) $(LTO) $(TRAIN_FLAGS) -shared -Wl,--version-script=src/hook/base/exports.map -Wl,-z,now -o $@ \
		$(TRAIN_CORE) $(TRAIN_HOOK) $(HOOK_LIBS) $(CORE_LIBS)
$(TRAIN)/llmgate-mock: $(TRAIN_CORE) $(MOCK_OBJ)
	$(CC) $(CFLAGS) $(LTO) $(TRAIN_FLAGS) -o $@ $(MOCK_OBJ) $(TRAIN_CORE) -lmicrohttpd -lz $(CORE_LIBS)
$(PROFILE): $(TRAIN)/libllmgate.so $(TRAIN)/llmgate-mock $(B)/clients/bench_client $(B)/clients/stream_client \
            tests/bench/train.sh tests/bench/socket_client.py
	bash tests/bench/train.sh $(TRAIN) $(B)/obj || echo "train: the training failed; the library is built without profile feedback" >&2
	@touch $@
$(CORE_OBJ) $(HOOK_OBJ): $(PROFILE)
# Read when the objects compile, after the training: without its counts (profile.ok missing) no -fprofile-use
# at all, since that also turns on loop unrolling and peeling, which without counts lay the path out worse.
PGO_USE = $(if $(wildcard $(TRAIN)/profile.ok),-fprofile-use $(PGO_VALUES) -fprofile-partial-training -Wno-missing-profile -Wno-error)
endif
$(CORE_OBJ) $(HOOK_OBJ): CFLAGS += $(LIB_CFLAGS) $(PGO_USE)

$(B)/san/%.o: %.c $(wildcard include/llmgate/*.h) | $(B)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -MMD -MP -c $< -o $@

$(B):
	@mkdir -p $(B)

# The redis backend's Lua script (its ops, then the lease op last), whole for redis-cli --eval in the tests,
# and as a C string literal.
$(B)/gen/redis_script.lua: src/store/redis_script.lua src/store/redis_lease.lua
	@mkdir -p $(dir $@)
	cat $^ > $@
$(B)/gen/redis_script.inc: $(B)/gen/redis_script.lua
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $< > $@
REDIS_SCRIPT_OBJ := $(foreach d,obj san fuzzobj train,$(B)/$(d)/src/store/redis_script.o)
$(REDIS_SCRIPT_OBJ): $(B)/gen/redis_script.inc
$(REDIS_SCRIPT_OBJ): CFLAGS += -I$(B)/gen

$(LIB): $(CORE_OBJ) $(HOOK_OBJ) src/hook/base/exports.map
	$(CC) $(CFLAGS) $(LIB_CFLAGS) $(PGO_USE) -shared -Wl,--version-script=src/hook/base/exports.map -Wl,-z,now -Wl,--no-undefined -o $@ $(CORE_OBJ) $(HOOK_OBJ) $(HOOK_LIBS) $(CORE_LIBS)

$(CLI): $(CORE_OBJ) $(FRONT_OBJ) $(CLI_OBJ)
	$(CC) -o $@ $(CLI_OBJ) $(FRONT_OBJ) $(CORE_OBJ) $(HOOK_LIBS) -lssl $(CORE_LIBS)

$(MOCK): $(CORE_OBJ) $(MOCK_OBJ)
	$(CC) -o $@ $(MOCK_OBJ) $(CORE_OBJ) -lmicrohttpd -lz $(CORE_LIBS)

$(B)/tests/%: tests/unit/%.c $(SAN_CORE_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $< $(EXTRA_OBJ) $(SAN_CORE_OBJ) -lcmocka $(CORE_LIBS)

# Unit tests of transport-neutral hook modules link those modules too.
$(B)/tests/test_h1_request: $(B)/san/src/front/h1_request.o $(B)/san/src/front/auth_key.o $(B)/san/src/front/h1_head.o
$(B)/tests/test_h1_request: EXTRA_OBJ = $(B)/san/src/front/h1_request.o $(B)/san/src/front/auth_key.o $(B)/san/src/front/h1_head.o -lhttp_parser
$(B)/tests/test_h1_target: $(B)/san/src/front/h1_target.o
$(B)/tests/test_h1_target: EXTRA_OBJ = $(B)/san/src/front/h1_target.o
H1_RESPONSE_TEST_OBJ := $(patsubst %,$(B)/san/src/front/%.o,h1_response h1_head stream_relay capture)
$(B)/tests/test_h1_response: $(H1_RESPONSE_TEST_OBJ)
$(B)/tests/test_h1_response: EXTRA_OBJ = $(H1_RESPONSE_TEST_OBJ) -lhttp_parser
$(B)/tests/test_capture: $(B)/san/src/front/capture.o
$(B)/tests/test_capture: EXTRA_OBJ = $(B)/san/src/front/capture.o
# test_capture_portable: the same tests on the capture built with its 8-byte scans instead of SSE2
$(B)/portable_capture/capture.o: src/front/capture.c | $(B)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -DLG_CAPTURE_PORTABLE -MMD -MP -c $< -o $@
$(B)/tests/test_capture_portable: tests/unit/test_capture.c $(B)/portable_capture/capture.o
$(B)/tests/test_capture_portable: EXTRA_OBJ = $(B)/portable_capture/capture.o
$(B)/tests/test_auth_key: $(B)/san/src/front/auth_key.o
$(B)/tests/test_auth_key: EXTRA_OBJ = $(B)/san/src/front/auth_key.o
$(B)/tests/test_curl_body: $(B)/san/src/hook/curl/body.o
$(B)/tests/test_curl_body: EXTRA_OBJ = $(B)/san/src/hook/curl/body.o
$(B)/tests/test_fd_watch: $(B)/san/src/hook/sock/fd_watch.o
$(B)/tests/test_fd_watch: EXTRA_OBJ = $(B)/san/src/hook/sock/fd_watch.o
$(B)/tests/test_alpn: $(B)/san/src/hook/tls/alpn.o
$(B)/tests/test_alpn: EXTRA_OBJ = $(B)/san/src/hook/tls/alpn.o
$(B)/tests/test_relay_preamble: $(B)/san/src/relay/preamble.o
$(B)/tests/test_relay_preamble: EXTRA_OBJ = $(B)/san/src/relay/preamble.o
$(B)/tests/test_relay_peer: $(B)/san/src/relay/peer.o
$(B)/tests/test_relay_peer: EXTRA_OBJ = $(B)/san/src/relay/peer.o

# test_json_scan_portable: the JSON skimmers built with their portable block classifier (LG_JSON_PORTABLE)
# instead of SSE2, linked in place of the usual objects, through the same differential test.
PORTABLE_SRC := src/classify/json.c src/classify/lazy.c src/limiter/estimate.c src/gate/body_model.c
PORTABLE_OBJ := $(PORTABLE_SRC:%.c=$(B)/portable/%.o)
$(B)/portable/%.o: %.c $(wildcard include/llmgate/*.h) | $(B)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -DLG_JSON_PORTABLE -MMD -MP -c $< -o $@
$(B)/tests/test_json_scan_portable: tests/unit/test_json_scan_portable.c tests/unit/test_json_scan.c $(PORTABLE_OBJ) $(SAN_CORE_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $< $(PORTABLE_OBJ) $(filter-out $(PORTABLE_SRC:%.c=$(B)/san/%.o),$(SAN_CORE_OBJ)) \
		-lcmocka $(CORE_LIBS)

# tests/clients/epoll_client.c: OpenSSL over a socket BIO
CLIENT_LIBS := -lssl -lcrypto
$(B)/clients/asan_%: tests/clients/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fsanitize=address -fno-omit-frame-pointer -o $@ $< -lcurl -lpthread $(CLIENT_LIBS)

$(B)/clients/%: tests/clients/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< -lcurl -lpthread $(CLIENT_LIBS)

unit: $(UNIT_BIN)
clients: $(CLIENT_BIN)

# The preload library built with AddressSanitizer and UBSan, for the ASan-built test clients (load it with
# the ASan runtime first: LD_PRELOAD="$$(cc -print-file-name=libasan.so) build/asan/libllmgate.so").
ASAN_LIB := $(B)/asan/libllmgate.so
SAN_HOOK_OBJ := $(HOOK_SRC:%.c=$(B)/san/%.o)
$(ASAN_LIB): $(SAN_CORE_OBJ) $(SAN_HOOK_OBJ) src/hook/base/exports.map
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) -shared -Wl,--version-script=src/hook/base/exports.map -Wl,-z,now -o $@ $(SAN_CORE_OBJ) $(SAN_HOOK_OBJ) $(HOOK_LIBS) $(CORE_LIBS)
asan: $(ASAN_LIB)

# libFuzzer harnesses (tests/fuzz/fuzz_*.c, clang): `make fuzz` runs each for FUZZ_SECONDS on a seed corpus
# from tests/fixtures; the test suite runs a short smoke of each.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_FLAGS   := -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined \
                -Wno-bitwise-instead-of-logical
FUZZ_BIN     := $(patsubst tests/fuzz/%.c,$(B)/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_CORE_OBJ := $(CORE_SRC:%.c=$(B)/fuzzobj/%.o)
$(B)/fuzzobj/%.o: %.c $(wildcard include/llmgate/*.h) | $(B)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CFLAGS) $(FUZZ_FLAGS) -MMD -MP -c $< -o $@
# the socket path's HTTP/1.1 framing is hook code: its harnesses link those objects too
$(B)/fuzz/fuzz_h1_request: FUZZ_EXTRA = $(B)/fuzzobj/src/front/h1_request.o $(B)/fuzzobj/src/front/auth_key.o $(B)/fuzzobj/src/front/h1_head.o $(HOOK_LIBS)
$(B)/fuzz/fuzz_h1_request: $(B)/fuzzobj/src/front/h1_request.o $(B)/fuzzobj/src/front/auth_key.o $(B)/fuzzobj/src/front/h1_head.o
H1_RESPONSE_FUZZ_OBJ := $(patsubst %,$(B)/fuzzobj/src/front/%.o,h1_response h1_head stream_relay capture)
$(B)/fuzz/fuzz_h1_response: FUZZ_EXTRA = $(H1_RESPONSE_FUZZ_OBJ) $(HOOK_LIBS)
$(B)/fuzz/fuzz_h1_response: $(H1_RESPONSE_FUZZ_OBJ)
$(B)/fuzz/%: tests/fuzz/%.c tests/fuzz/response.h tests/fuzz/h1_reader.h $(FUZZ_CORE_OBJ)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_EXTRA) $(FUZZ_CORE_OBJ) $(CORE_LIBS)
fuzz-build: $(FUZZ_BIN)
fuzz: fuzz-build
	@bash tests/fuzz/run.sh $(FUZZ_SECONDS)

test: all unit clients asan fuzz-build
	@bash tests/run.sh

# Breaks the code on purpose in a scratch copy, one mutation at a time, and shows the tests catching each
# (tests/mutate.sh; several minutes, not part of `make test`). MUTATIONS="name ..." picks some.
mutate: all unit clients
	@bash tests/mutate.sh $(MUTATIONS)

bench: all clients
	@bash tests/bench/run.sh

demo: all
	@bash demo/run.sh

# Installed layout. LIBDIR is fixed relative to BINDIR: llmgate run finds the library at ../lib/llmgate from
# its own executable (src/cli/libpath.h), whatever PREFIX the build was made for.
BINDIR     := $(PREFIX)/bin
LIBDIR     := $(PREFIX)/lib/llmgate
LIBEXECDIR := $(PREFIX)/libexec/llmgate
MANDIR     := $(PREFIX)/share/man
DOCDIR     := $(PREFIX)/share/doc/llmgate
COMPDIR    := $(PREFIX)/share/bash-completion/completions
EXAMPLES   := $(wildcard examples/*.json)
INSTALLED  := $(BINDIR)/llmgate $(LIBDIR)/libllmgate.so $(LIBEXECDIR)/llmgate-mock-provider \
              $(MANDIR)/man1/llmgate.1 $(MANDIR)/man5/llmgate.json.5 $(COMPDIR)/llmgate $(SHAREDIR)/prices.json \
              $(DOCDIR)/README.md $(DOCDIR)/examples/README.md $(EXAMPLES:%=$(DOCDIR)/%) \
              $(DOCDIR)/examples/grafana/llmgate-dashboard.json

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(MANDIR)/man1 \
	           $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(COMPDIR) $(DESTDIR)$(DOCDIR)/examples/grafana $(DESTDIR)$(SHAREDIR)
	install -m 0755 $(CLI) $(DESTDIR)$(BINDIR)/llmgate
	install -m 0644 $(LIB) $(DESTDIR)$(LIBDIR)/libllmgate.so
	install -m 0755 $(MOCK) $(DESTDIR)$(LIBEXECDIR)/llmgate-mock-provider
	install -m 0644 man/llmgate.1 $(DESTDIR)$(MANDIR)/man1/llmgate.1
	install -m 0644 man/llmgate.json.5 $(DESTDIR)$(MANDIR)/man5/llmgate.json.5
	install -m 0644 completions/llmgate.bash $(DESTDIR)$(COMPDIR)/llmgate
	install -m 0644 data/prices.json $(DESTDIR)$(SHAREDIR)/prices.json
	install -m 0644 README.md $(DESTDIR)$(DOCDIR)/README.md
	install -m 0644 examples/README.md $(EXAMPLES) $(DESTDIR)$(DOCDIR)/examples/
	install -m 0644 examples/grafana/llmgate-dashboard.json $(DESTDIR)$(DOCDIR)/examples/grafana/

# Removes what install put there (same PREFIX and DESTDIR), and the directories of llmgate's own.
uninstall:
	rm -f $(INSTALLED:%=$(DESTDIR)%)
	rmdir $(DESTDIR)$(DOCDIR)/examples/grafana $(DESTDIR)$(DOCDIR)/examples $(DESTDIR)$(DOCDIR) $(DESTDIR)$(SHAREDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(LIBEXECDIR) 2>/dev/null || true

# The Debian packages llmgate and llmgate-mock-provider in build/ (debian/build-deb.sh; dpkg-buildpackage
# -b works as well, through debian/rules).
deb: all
	rm -f $(B)/deb.files
	sh debian/build-deb.sh $(B) $(B)/deb.files

clean:
	rm -rf $(B)

# Installs the Debian packages the build and the tests need, only those missing. Idempotent.
deps:
	@missing=""; for p in $(DEPS_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	else echo "all build dependencies present"; fi

# dpkg-dev builds the Debian packages (make deb); groff checks the man pages; pycurl is a tested Python host.
DEPS_PKGS += dpkg-dev groff-base python3-pycurl

-include $(shell find $(B) -name '*.d' 2>/dev/null)
