/* Delays without blocking a server thread: a suspended connection is resumed by a timer thread when
 * its time comes, and the server then carries on answering it. */
#ifndef MOCK_TIMER_H
#define MOCK_TIMER_H

#include <stdbool.h>
#include <stdint.h>

#include <microhttpd.h>

/* Starts the timer thread. Returns 0, or -1 when the thread cannot be created. */
int mock_timer_start(void);
/* Suspends conn and has it resumed in ms milliseconds. Call only from an MHD access handler or
 * content reader. Returns false, without suspending, once the timer is stopping. */
bool mock_timer_suspend(struct MHD_Connection *conn, int64_t ms);
/* Resumes every waiting connection at once, refuses later suspensions and joins the thread. */
void mock_timer_stop(void);

#endif
