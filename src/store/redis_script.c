/* The Lua script of the redis backend (src/store/redis_script.lua and, after it, src/store/redis_lease.lua,
 * turned into one C string at build time). */
const char lg_redis_script[] =
#include "redis_script.inc"
    ;
