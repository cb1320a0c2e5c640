/* test_capture with the capture built without SSE2 (LG_CAPTURE_PORTABLE; see the Makefile): the colon
 * found and the lines copied 8 bytes at a time, as on other architectures, must read every line as the SSE2
 * build does. */
#include "test_capture.c"
