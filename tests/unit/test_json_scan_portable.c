/* test_json_scan with the portable block classifier: this file and the skimmers it links (json.c, lazy.c,
 * estimate.c, body_model.c; see the Makefile) are built with LG_JSON_PORTABLE, the byte loop that other
 * architectures use instead of SSE2, and must give the digests the SSE2 build gives. */
#define LG_JSON_PORTABLE 1
#include "test_json_scan.c"
