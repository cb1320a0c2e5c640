/* The config against the shared store's size (see conf_check_capacity). */
#include "conf/conf_internal.h"

void conf_check_capacity(conf_ctx *cx, const lg_config *c)
{
    size_t accounts = 0;
    for (size_t i = 0; i < c->n_providers; i++)
        accounts += c->providers[i].n_accounts;
    if (c->n_providers > LG_CONFIG_STORE_PROVIDERS || accounts > LG_CONFIG_STORE_ACCOUNTS)
        conf_err(cx, "providers",
                 "%zu providers with %zu accounts in all (the presets included); the state store holds at most "
                 "%d providers and %d accounts",
                 c->n_providers, accounts, LG_CONFIG_STORE_PROVIDERS, LG_CONFIG_STORE_ACCOUNTS);
}
