/* Account pools ("pool" on an account, retry.pool_fallback): the order a provider's accounts are used in. */
#include <string.h>

#include "conf/conf_internal.h"

/* Rank of account i's pool: 0 for the default pool, else 1 + the number of distinct named pools that
 * first appear before it. */
static size_t pool_rank(const lg_provider *p, size_t i)
{
    const char *pool = p->accounts[i].pool;
    if (!pool[0])
        return 0;
    size_t rank = 1;
    for (size_t j = 0; j < p->n_accounts; j++) {
        const char *other = p->accounts[j].pool;
        if (!strcmp(other, pool))
            return rank;
        bool first = other[0] != '\0';
        for (size_t k = 0; k < j && first; k++)
            first = strcmp(p->accounts[k].pool, other) != 0;
        rank += first;
    }
    return rank;
}

void conf_order_pools(lg_provider *p)
{
    size_t rank[LG_CONF_MEMBERS_MAX];
    if (p->n_accounts > LG_CONF_MEMBERS_MAX)
        return;
    for (size_t i = 0; i < p->n_accounts; i++)
        rank[i] = pool_rank(p, i);
    for (size_t i = 1; i < p->n_accounts; i++) { /* insertion sort: stable within a pool */
        lg_account a = p->accounts[i];
        size_t r = rank[i], j = i;
        for (; j > 0 && rank[j - 1] > r; j--) {
            p->accounts[j] = p->accounts[j - 1];
            rank[j] = rank[j - 1];
        }
        p->accounts[j] = a;
        rank[j] = r;
    }
}
