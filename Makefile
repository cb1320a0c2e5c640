# llmgate: one Makefile builds the preload library, the llmgate command, the mock provider and the tests.
PREFIX  ?= /usr/local
DESTDIR ?=
CC      ?= cc
B       := build

PKG_CFLAGS := $(shell pkg-config --cflags libcurl libcjson 2>/dev/null)
WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-unused-parameter
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -D_GNU_SOURCE $(WARN) -Iinclude -Isrc $(PKG_CFLAGS) -fPIC -fvisibility=hidden
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

CORE_SRC  := $(wildcard src/util/*.c src/conf/*.c src/classify/*.c src/providers/*.c src/gate/*.c src/store/*.c)
HOOK_SRC  := $(wildcard src/hook/*.c)
CLI_SRC   := $(wildcard src/cli/*.c)
MOCK_SRC  := $(wildcard src/mock/*.c)
UNIT_SRC  := $(wildcard tests/unit/test_*.c)
CLIENT_SRC := $(wildcard tests/clients/*.c)

CORE_OBJ  := $(CORE_SRC:%.c=$(B)/obj/%.o)
HOOK_OBJ  := $(HOOK_SRC:%.c=$(B)/obj/%.o)
CLI_OBJ   := $(CLI_SRC:%.c=$(B)/obj/%.o)
MOCK_OBJ  := $(MOCK_SRC:%.c=$(B)/obj/%.o)
SAN_CORE_OBJ := $(CORE_SRC:%.c=$(B)/san/%.o)
UNIT_BIN  := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
CLIENT_BIN := $(CLIENT_SRC:tests/clients/%.c=$(B)/clients/%) $(CLIENT_SRC:tests/clients/%.c=$(B)/clients/asan_%)

CORE_LIBS := -lcjson -lcrypto -lpthread -ldl -lm

LIB  := $(B)/libllmgate.so
CLI  := $(B)/llmgate
MOCK := $(B)/llmgate-mock

DEPS_PKGS := build-essential pkg-config libcurl4-openssl-dev libcjson-dev uthash-dev libmicrohttpd-dev \
             libcmocka-dev libhttp-parser-dev libhiredis-dev libssl-dev curl openssl python3 ca-certificates
# The redis store backend: its tests start their own redis-server; hiredis is dlopen'ed, never linked.
DEPS_PKGS += redis-server libhiredis-dev

.PHONY: all test bench demo install clean deps unit clients
.SECONDARY:
all: $(LIB) $(CLI) $(MOCK)

$(B)/obj/%.o: %.c $(wildcard include/llmgate/*.h) | $(B)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -c $< -o $@

$(B)/san/%.o: %.c $(wildcard include/llmgate/*.h) | $(B)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -MMD -c $< -o $@

$(B):
	@mkdir -p $(B)

# The redis backend's Lua script, as a C string literal.
$(B)/gen/redis_script.inc: src/store/redis_script.lua
	@mkdir -p $(dir $@)
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $< > $@
$(B)/obj/src/store/redis_script.o $(B)/san/src/store/redis_script.o: $(B)/gen/redis_script.inc
$(B)/obj/src/store/redis_script.o $(B)/san/src/store/redis_script.o: CFLAGS += -I$(B)/gen

$(LIB): $(CORE_OBJ) $(HOOK_OBJ) src/hook/exports.map
	$(CC) -shared -Wl,--version-script=src/hook/exports.map -Wl,-z,now -Wl,--no-undefined -o $@ $(CORE_OBJ) $(HOOK_OBJ) $(CORE_LIBS)

$(CLI): $(CORE_OBJ) $(CLI_OBJ)
	$(CC) -o $@ $(CLI_OBJ) $(CORE_OBJ) $(CORE_LIBS)

$(MOCK): $(CORE_OBJ) $(MOCK_OBJ)
	$(CC) -o $@ $(MOCK_OBJ) $(CORE_OBJ) -lmicrohttpd $(CORE_LIBS)

$(B)/tests/%: tests/unit/%.c $(SAN_CORE_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $< $(SAN_CORE_OBJ) -lcmocka $(CORE_LIBS)

$(B)/clients/asan_%: tests/clients/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fsanitize=address -fno-omit-frame-pointer -o $@ $< -lcurl -lpthread

$(B)/clients/%: tests/clients/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< -lcurl -lpthread

unit: $(UNIT_BIN)
clients: $(CLIENT_BIN)

test: all unit clients
	@bash tests/run.sh

bench: all clients
	@bash tests/bench/run.sh

demo: all
	@bash demo/run.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(LIB) $(DESTDIR)$(PREFIX)/lib/libllmgate.so
	install -m 0755 $(CLI) $(DESTDIR)$(PREFIX)/bin/llmgate
	install -m 0755 $(MOCK) $(DESTDIR)$(PREFIX)/bin/llmgate-mock

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

-include $(shell find $(B) -name '*.d' 2>/dev/null)
