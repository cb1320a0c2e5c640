/* Unit tests for spend's pure rules: the price table (globs, provider by name or preset, dearest, cost
 * arithmetic), the budget config, budget matches and periods with a fake clock, and the day aggregates'
 * bound ("other" past the cap). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "llmgate/spend.h"

#define T0 INT64_C(1796594400000) /* 2026-12-06T22:00:00Z */
#define HOUR INT64_C(3600000)
#define DAY (24 * HOUR)

static lg_config *parse(const char *json, char *err, size_t cap)
{
    lg_errors errs = {0};
    static char none[] = "/tmp/lgt-prices.XXXXXX"; /* an empty price table: the installed one is not read */
    if (!getenv("LLMGATE_PRICES")) {
        int fd = mkstemp(none);
        static const char empty[] = "{\"taken\": \"2026-01-01\", \"prices\": []}";
        assert_true(fd >= 0 && write(fd, empty, sizeof empty - 1) == (ssize_t)(sizeof empty - 1));
        close(fd);
        setenv("LLMGATE_PRICES", none, 1);
    }
    lg_config *c = lg_config_parse(json, strlen(json), "t", false, &errs);
    snprintf(err, cap, "%s", errs.n ? errs.items[0] : "");
    lg_errors_free(&errs);
    return c;
}

#define CONFIG                                                                                                 \
    "{\"providers\": {\"mine\": {\"hosts\": [\"llm.example\"], \"dialect\": \"openai\"}},"                     \
    " \"prices\": {\"models\": ["                                                                              \
    "  {\"provider\": \"openai\", \"model\": \"gpt-4o-mini*\", \"input\": 0.15, \"cached_input\": 0.075, \"output\": 0.6}," \
    "  {\"provider\": \"openai\", \"model\": \"gpt-4o*\", \"input\": 2.5, \"output\": 10},"                       \
    "  {\"provider\": \"mine\", \"model\": \"local\", \"input\": 1, \"output\": 2}]},"                           \
    " \"budgets\": [{\"name\": \"nightly\", \"match\": {\"provider\": \"openai\", \"program\": \"nightly-*\"}, \"usd\": 5},"   \
    "  {\"name\": \"all\", \"per\": \"hour\", \"usd\": 1}]}"

static void prices_by_glob_and_provider(void **state)
{
    (void)state;
    char err[512];
    lg_config *c = parse(CONFIG, err, sizeof err);
    assert_non_null(c);
    const lg_provider *openai = lg_config_provider(c, "openai"), *mine = lg_config_provider(c, "mine");
    assert_non_null(openai);
    const lg_price *p = lg_price_find(c, openai, "gpt-4o-mini-2024-07-18");
    assert_non_null(p);
    assert_true(p->input == 0.15 && p->cached_input == 0.075); /* the first match: the mini's glob */
    p = lg_price_find(c, openai, "gpt-4o");
    assert_true(p && p->input == 2.5 && p->cached_input == 2.5); /* no cached price: the input's */
    assert_null(lg_price_find(c, openai, "o9-unknown"));        /* unpriced, never free */
    assert_null(lg_price_find(c, openai, ""));
    assert_null(lg_price_find(c, mine, "gpt-4o"));              /* another provider's prices */
    assert_non_null(lg_price_find(c, mine, "local"));
    assert_true(lg_price_dearest(c, openai)->output == 10);
    /* 1000 input of which 400 cached, 200 output at gpt-4o-mini: 600*0.15 + 400*0.075 + 200*0.6 = 240 micro-USD */
    lg_tokens u = {1000, 400, 200, false};
    assert_int_equal(lg_price_cost_nusd(lg_price_find(c, openai, "gpt-4o-mini"), &u), 240000);
    u = (lg_tokens){10, 50, 0, false}; /* more cached than input: capped */
    assert_int_equal(lg_price_cost_nusd(lg_price_find(c, openai, "gpt-4o-mini"), &u), 750);
    lg_config_free(c);
}

/* lg_price_for answers as lg_price_find, else lg_price_dearest, whatever it asked before: another model,
 * another provider, another config with the same provider names and other prices, a model too long to be
 * remembered. */
static void price_memo_answers_as_the_table(void **state)
{
    (void)state;
    char err[512];
    lg_config *c = parse(CONFIG, err, sizeof err);
    lg_config *d = parse("{\"providers\": {\"mine\": {\"hosts\": [\"llm.example\"], \"dialect\": \"openai\"}},"
                         " \"prices\": {\"models\": [{\"provider\": \"openai\", \"model\": \"gpt-4o\", \"input\": 7,"
                         " \"output\": 8}, {\"provider\": \"openai\", \"model\": \"o1*\", \"input\": 1, \"output\": 9}]}}",
                         err, sizeof err);
    assert_true(c && d);
    char longer[LG_PRICE_MEMO_MODEL + 8];
    memset(longer, 'x', sizeof longer - 1);
    memcpy(longer, "gpt-4o", 6);
    longer[sizeof longer - 1] = '\0';
    const char *models[] = {"gpt-4o-mini", "gpt-4o-mini", "gpt-4o", "gpt-4o", "local", "o9", "", "o1-pro", longer, longer};
    const lg_config *cfgs[] = {c, d};
    const char *provs[] = {"openai", "mine"};
    for (unsigned step = 0; step < 400; step++) { /* a sequence mixing repeats and changes */
        unsigned r = step * 2654435761u;
        const lg_config *cf = cfgs[(r >> 7) % 2];
        const lg_provider *p = lg_config_provider(cf, provs[(r >> 11) % 2]);
        const char *m = models[(r >> 15) % 10];
        for (int again = 0; again < 2; again++) {
            bool listed = !again;
            const lg_price *want = lg_price_find(cf, p, m), *got = lg_price_for(cf, p, m, &listed);
            assert_true(listed == (want != NULL));
            assert_ptr_equal(got, want ? want : lg_price_dearest(cf, p));
        }
    }
    lg_config_free(c);
    lg_config_free(d);
}

static void bad_prices_and_budgets(void **state)
{
    (void)state;
    char err[512];
    assert_null(parse("{\"prices\": {\"models\": [{\"provider\": \"openai\", \"model\": \"x\", \"input\": -1, \"output\": 1}]}}", err, sizeof err));
    assert_non_null(strstr(err, "prices.models[0].input"));
    assert_null(parse("{\"prices\": {\"models\": [{\"provider\": \"openai\", \"input\": 1, \"output\": 1}]}}", err, sizeof err));
    assert_non_null(strstr(err, "model"));
    assert_null(parse("{\"budgets\": [{\"name\": \"a\", \"usd\": 0}]}", err, sizeof err));
    assert_non_null(strstr(err, "budgets[0].usd"));
    assert_null(parse("{\"budgets\": [{\"name\": \"a\", \"usd\": 1}, {\"name\": \"a\", \"usd\": 2}]}", err, sizeof err));
    assert_non_null(strstr(err, "already defined"));
    assert_null(parse("{\"budgets\": [{\"name\": \"a\", \"usd\": 1, \"match\": {\"team\": \"x\"}}]}", err, sizeof err));
    assert_null(parse("{\"budgets\": [{\"usd\": 1}]}", err, sizeof err));
    assert_null(parse("{\"prices\": {\"file\": \"/nonexistent/prices.json\"}}", err, sizeof err));
    assert_non_null(strstr(err, "/nonexistent/prices.json"));
    assert_null(parse("{\"spend\": {\"time_zone\": \"Nowhere/Atlantis\"}}", err, sizeof err));
    assert_non_null(strstr(err, "spend.time_zone: unknown time zone \"Nowhere/Atlantis\""));
    assert_null(parse("{\"spend\": {\"time_zone\": \"../../etc/passwd\"}}", err, sizeof err));
    assert_non_null(strstr(err, "spend.time_zone"));
    assert_null(parse("{\"spend\": {\"flush_requests\": 0}}", err, sizeof err));
    assert_non_null(strstr(err, "spend.flush_requests"));
    /* a zone named: the budgets count its days */
    lg_config *c = parse("{\"spend\": {\"time_zone\": \"Europe/Berlin\"}, \"budgets\": [{\"name\": \"b\", \"usd\": 1}]}",
                         err, sizeof err);
    assert_non_null(c);
    assert_non_null(c->spend_tz);
    assert_ptr_equal(c->budgets[0].tz, c->spend_tz);
    assert_int_equal(lg_tz_offset(c->spend_tz, T0 / 1000), 3600);
    lg_config_free(c);
}

static void budget_matches(void **state)
{
    (void)state;
    char err[512];
    lg_config *c = parse(CONFIG, err, sizeof err);
    assert_non_null(c);
    assert_int_equal(c->n_budgets, 2);
    const lg_budget_conf *nightly = &c->budgets[0], *all = &c->budgets[1];
    assert_int_equal(nightly->per, LG_PER_DAY);
    lg_spend_key k = {"openai", "main", "gpt-4o", "nightly-report"};
    assert_true(lg_budget_matches(nightly, &k));
    assert_true(lg_budget_matches(all, &k));
    k.program = "daytime";
    assert_false(lg_budget_matches(nightly, &k));
    k.program = "nightly-x", k.provider = "anthropic";
    assert_false(lg_budget_matches(nightly, &k));
    lg_config_free(c);
}

static void periods_and_admission(void **state)
{
    (void)state;
    assert_int_equal(lg_budget_period_start(LG_PER_DAY, NULL, T0), T0 - 22 * HOUR);
    assert_int_equal(lg_budget_period_end(LG_PER_DAY, NULL, T0), T0 + 2 * HOUR);
    assert_int_equal(lg_budget_period_start(LG_PER_HOUR, NULL, T0 + 59 * 60000), T0);
    assert_int_equal(lg_budget_period_end(LG_PER_HOUR, NULL, T0 + 1), T0 + HOUR);
    /* December 2026: from the 1st to January 1st 2027 */
    assert_int_equal(lg_budget_period_start(LG_PER_MONTH, NULL, T0), T0 - 5 * DAY - 22 * HOUR);
    assert_int_equal(lg_budget_period_end(LG_PER_MONTH, NULL, T0), T0 - 5 * DAY - 22 * HOUR + 31 * DAY);

    lg_budget_conf b = {.name = "b", .per = LG_PER_HOUR, .usd = 1};
    lg_budget_slot s = {.name = "b"};
    assert_true(lg_budget_allows(&s, &b, T0));
    s.spent_nusd = 600000000;   /* 0.60 spent */
    s.pending_nusd = 300000000; /* 0.30 may still be spent by requests running */
    assert_true(lg_budget_allows(&s, &b, T0 + 1000));
    s.pending_nusd = 400000000; /* 1.00: the next request would start past it */
    assert_false(lg_budget_allows(&s, &b, T0 + 2000));
    s.lifted_ms = s.period_ms; /* llmgate reset --budget */
    assert_true(lg_budget_allows(&s, &b, T0 + 3000));
    s.lifted_ms = 0;
    s.pending_nusd = 0;
    s.spent_nusd = 1000000000;
    assert_false(lg_budget_allows(&s, &b, T0 + HOUR - 1));
    assert_true(lg_budget_allows(&s, &b, T0 + HOUR)); /* a new hour: spent starts over */
    assert_int_equal(s.spent_nusd, 0);
    assert_int_equal(s.period_ms, T0 + HOUR);
}

static void day_rows_are_bounded(void **state)
{
    (void)state;
    lg_spend_day *d = calloc(1, sizeof *d);
    assert_non_null(d);
    lg_spend_counts one = {.requests = 1, .cost_nusd = 5};
    char model[32];
    for (int i = 0; i < 1000; i++) {
        snprintf(model, sizeof model, "model-%d", i);
        lg_spend_key k = {"openai", "main", model, "job"};
        lg_spend_day_add(d, 20000, &k, &one);
    }
    assert_true(d->n <= LG_SPEND_ROWS);
    uint64_t total = 0, other = 0;
    for (int i = 0; i < LG_SPEND_ROWS; i++) {
        total += d->rows[i].c.requests;
        if (d->rows[i].used && !strcmp(d->rows[i].model, "other"))
            other += d->rows[i].c.requests;
    }
    assert_int_equal(total, 1000); /* nothing lost */
    assert_int_equal(other, 1000 - LG_SPEND_ROWS_NAMED);
    lg_spend_key k = {"openai", "main", "model-3", "job"}; /* a named row keeps counting under its name */
    lg_spend_day_add(d, 20000, &k, &one);
    for (int i = 0; i < LG_SPEND_ROWS; i++)
        if (d->rows[i].used && !strcmp(d->rows[i].model, "model-3"))
            assert_int_equal(d->rows[i].c.requests, 2);
    lg_spend_day_add(d, 20001, &k, &one); /* the next day starts empty */
    assert_int_equal(d->n, 1);
    assert_int_equal(d->day, 20001);
    free(d);
}

/* The thread's hint of its last row changes no count: a day fed a sequence of keys (repeats, names cut to
 * their fields, absent names, past the cap and the full day, a new day) with the hint in play ends byte for
 * byte as the same day fed the same keys with the hint sent elsewhere before each add. */
static void day_row_hint_counts_as_without(void **state)
{
    (void)state;
    lg_spend_day *hinted = calloc(1, sizeof *hinted), *plain = calloc(1, sizeof *plain);
    lg_spend_day *scratch = calloc(1, sizeof *scratch);
    assert_true(hinted && plain && scratch);
    char models[5][LG_SPEND_MODEL_MAX + 16], programs[3][LG_SPEND_PROGRAM_MAX + 8];
    for (int i = 0; i < 5; i++) /* the first two differ past the field's end only: one row */
        snprintf(models[i], sizeof models[i], "%.*s%c", LG_SPEND_MODEL_MAX - 1,
                 "gpt-4o-mini-with-a-name-long-enough-to-be-cut-to-its-field-xxxxxxxxxxxxxxxxxx", "abcde"[i]);
    models[2][LG_SPEND_MODEL_MAX - 2] = 'Z'; /* differs inside the field */
    snprintf(models[3], sizeof models[3], "gpt-4o");
    models[4][0] = '\0';
    snprintf(programs[0], sizeof programs[0], "job");
    snprintf(programs[1], sizeof programs[1], "%.*s", LG_SPEND_PROGRAM_MAX + 4, "a-program-name-longer-than-its-field-q");
    programs[2][0] = '\0';
    const char *accounts[] = {"one", "two", NULL};
    for (int pass = 0; pass < 2; pass++) { /* the same keys twice: into hinted, then into plain */
        char many[16];
        unsigned r = 12345;
        for (int step = 0; step < 4000; step++) {
            r = r * 1103515245u + 12345u;
            int64_t day = step < 3000 ? 20000 : 20001;
            lg_spend_key k = {"openai", accounts[(r >> 8) % 3], models[(r >> 12) % 5], programs[(r >> 16) % 3]};
            if ((r >> 20) % 4 == 0) { /* a new model now and then: the day fills past its cap */
                snprintf(many, sizeof many, "m-%d", step);
                k.model = many;
            }
            lg_spend_counts c = {.requests = 1, .input = (r >> 4) % 1000, .cost_nusd = step};
            for (int again = 0; again < 1 + (int)((r >> 24) % 3); again++) { /* repeats: the hint's case */
                if (!pass) {
                    lg_spend_day_add(hinted, day, &k, &c);
                    continue;
                }
                char other[24]; /* the hint sent to a row of another day first */
                snprintf(other, sizeof other, "s-%d-%d", step, again);
                lg_spend_day_add(scratch, 1, &(lg_spend_key){"x", "y", other, "z"}, &c);
                lg_spend_day_add(plain, day, &k, &c);
            }
        }
    }
    assert_memory_equal(hinted, plain, sizeof *plain);
    free(hinted);
    free(plain);
    free(scratch);
}

static void ledger_lines_and_rotation(void **state)
{
    (void)state;
    char dir[] = "/tmp/lgt-ledger.XXXXXX", base[256], f[512];
    assert_non_null(mkdtemp(dir));
    snprintf(base, sizeof base, "%s/ledger", dir);
    lg_ledger_entry e = {.at_ms = T0, .pid = 42, .key = {"openai", "main", "gpt-4o\"x", "job"}, .status = 200,
                         .reason = "NONE", .attempts = 2, .waited_ms = 1500, .tokens = {100, 20, 10, false},
                         .priced = true, .cost_nusd = 1234567};
    char line[1024];
    size_t n = lg_ledger_line(&e, line, sizeof line);
    assert_true(n > 0 && line[n - 1] == '\n');
    assert_non_null(strstr(line, "\"time\":\"2026-12-06T22:00:00.000Z\",\"pid\":42,\"program\":\"job\""));
    assert_non_null(strstr(line, "\"model\":\"gpt-4o\\\"x\"")); /* escaped */
    assert_non_null(strstr(line, "\"attempts\":2,\"waited_ms\":1500,\"input_tokens\":100,\"cached_tokens\":20"));
    assert_non_null(strstr(line, "\"cost_usd\":0.001234567}"));
    e.priced = false;
    lg_ledger_line(&e, line, sizeof line);
    assert_non_null(strstr(line, "\"cost_usd\":null}")); /* unpriced: no figure */
    assert_int_equal(lg_ledger_line(&e, line, 40), 0);
    /* a day's file, then the next day's; with keep_days 2 the day after that removes the first */
    lg_ledger_append(base, 2, &e);
    lg_ledger_append(base, 2, &e);
    e.at_ms = T0 + DAY;
    lg_ledger_append(base, 2, &e);
    assert_true(lg_ledger_file(base, T0 / DAY, f, sizeof f));
    FILE *fp = fopen(f, "r");
    assert_non_null(fp);
    int lines = 0, ch;
    while ((ch = fgetc(fp)) != EOF)
        lines += ch == '\n';
    fclose(fp);
    assert_int_equal(lines, 2);
    struct stat st;
    assert_int_equal(stat(f, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    e.at_ms = T0 + 2 * DAY;
    lg_ledger_append(base, 2, &e);
    assert_int_not_equal(stat(f, &st), 0); /* 2 days old, keep_days 2: removed */
    assert_true(lg_ledger_file(base, T0 / DAY + 1, f, sizeof f));
    assert_int_equal(stat(f, &st), 0);
    unlink(f);
    assert_true(lg_ledger_file(base, T0 / DAY + 2, f, sizeof f));
    unlink(f);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(prices_by_glob_and_provider),
        cmocka_unit_test(price_memo_answers_as_the_table),
        cmocka_unit_test(bad_prices_and_budgets),
        cmocka_unit_test(budget_matches),
        cmocka_unit_test(periods_and_admission),
        cmocka_unit_test(day_rows_are_bounded),
        cmocka_unit_test(day_row_hint_counts_as_without),
        cmocka_unit_test(ledger_lines_and_rotation),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    if (getenv("LLMGATE_PRICES"))
        unlink(getenv("LLMGATE_PRICES"));
    return rc;
}
