/* The Lua script of the redis backend (src/store/redis_script.lua, turned into a C string at build time). */
const char lg_redis_script[] =
#include "redis_script.inc"
    ;
