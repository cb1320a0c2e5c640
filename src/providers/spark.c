/* iFlytek Spark: its WebSocket frames (and relays that return one as the HTTP body) carry
 * {"header": {"code": N, "message": "...", "sid": "..."}}, its HTTP API {"code": N, "message": "...",
 * "sid": "..."}; code 0 is success, any other an error, even under HTTP 200. The "sid" member tells this
 * envelope from other APIs' top-level codes. */
#include "providers/readers.h"

/* Spark's error-code table (xfyun.cn/doc/spark/Web.html, "错误码"): 1120x are its licence and flow-control
 * refusals; 10006 and 10007 allow one connection and one question at a time per user; 10008 and 10110 are
 * the service's own capacity; 10009-10012 and 10222 its engine's failures. */
static const lg_num_code codes[] = {
    {10003, LG_SIG_REJECT},   /* the user's message is malformed */
    {10004, LG_SIG_REJECT},   /* the user's data does not fit the schema */
    {10005, LG_SIG_REJECT},   /* a parameter value is wrong */
    {10006, LG_SIG_RATE},     /* the user is already connected: one connection at a time */
    {10007, LG_SIG_RATE},     /* the user's previous question is still being answered */
    {10008, LG_SIG_CAPACITY}, /* the service lacks capacity */
    {10110, LG_SIG_CAPACITY}, /* the service is busy */
    {10009, LG_SIG_SERVER},   /* connecting to the engine failed */
    {10010, LG_SIG_SERVER},   /* receiving the engine's data failed */
    {10011, LG_SIG_SERVER},   /* sending data to the engine failed */
    {10012, LG_SIG_SERVER},   /* the engine's internal error */
    {10013, LG_SIG_REJECT}, /* input content refused */
    {10014, LG_SIG_REJECT}, /* output content refused */
    {10015, LG_SIG_REJECT}, /* the appid is blacklisted */
    {10016, LG_SIG_REJECT}, /* the appid's authorisation is wrong */
    {10019, LG_SIG_REJECT}, /* content refused */
    {10163, LG_SIG_REJECT}, /* the parameters passed to the engine are wrong */
    {10222, LG_SIG_SERVER}, /* the engine's network failed */
    {10907, LG_SIG_REJECT}, /* too many tokens for the context */
    {11200, LG_SIG_QUOTA},  /* no licence for the function, or the licensed volume is used up */
    {11201, LG_SIG_QUOTA},  /* daily flow control exceeded */
    {11202, LG_SIG_RATE},   /* per-second flow control exceeded */
    {11203, LG_SIG_RATE},   /* concurrency flow control exceeded */
};

/* The code and message of a Spark envelope o (a frame's header, or the body itself). */
static bool envelope(lg_cls *c, const cJSON *o)
{
    int64_t code;
    if (!cJSON_IsObject(o) || !lg_json_str(o, "sid") || !lg_json_int(o, "code", &code) || code == 0)
        return false;
    /* a family's code: the message's own words, when they name a window or a quota, are more specific */
    lg_cls_status_error(c, lg_json_str(o, "message"), LG_EV_GENERIC,
                        lg_num_code_signal(codes, sizeof codes / sizeof codes[0], code));
    return true;
}

/* Whether doc is an iFlytek Spark document whose code states a failure; records what it says into c. */
static bool read_error(lg_cls *c, const cJSON *doc, bool http_error)
{
    return envelope(c, cJSON_GetObjectItemCaseSensitive(doc, "header")) || envelope(c, doc);
}

/* This dialect's entry in the readers table (readers.c). */
const lg_dialect_reader lg_spark_reader = {LG_DIALECT_NONE, read_error, NULL};
