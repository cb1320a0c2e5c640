/* Releasing a configuration; key material is overwritten before its memory is returned. */
#include <stdlib.h>
#include <string.h>

#include "conf/conf_internal.h"
#include "conf/fields.h"

void conf_free_secret(char *s)
{
    if (!s)
        return;
    explicit_bzero(s, strlen(s));
    free(s);
}

void conf_provider_free(lg_provider *p)
{
    for (size_t i = 0; i < p->n_hosts; i++)
        free(p->hosts[i]);
    free(p->hosts);
    free(p->upstream);
    for (size_t i = 0; i < p->n_accounts; i++) {
        conf_free_secret(p->accounts[i].key);
        free(p->accounts[i].key_ref);
    }
    free(p->accounts);
    for (size_t i = 0; i < p->n_fallback; i++)
        free(p->fallback[i]);
    free(p->fallback);
    for (size_t i = 0; i < p->n_models; i++) {
        free(p->models[i].pattern);
        free(p->models[i].model);
    }
    free(p->models);
    memset(p, 0, sizeof *p);
}

void lg_config_free(lg_config *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n_routes; i++) {
        lg_route *r = &c->routes[i];
        free(r->model);
        free(r->program);
        free(r->header);
        free(r->set_model);
        free(r->to);
        free(r->refuse);
    }
    free(c->routes);
    conf_spend_free(c);
    free(c->gateway_tokens);
    for (size_t i = 0; i < c->n_providers; i++)
        conf_provider_free(&c->providers[i]);
    free(c->providers);
    for (size_t i = 0; i < conf_n_sections; i++)
        for (size_t j = 0; j < conf_sections[i]->n_fields; j++)
            if (conf_sections[i]->fields[j].kind == CONF_PATH)
                free(*(char **)((char *)c + conf_sections[i]->offset + conf_sections[i]->fields[j].offset));
    free(c->source);
    free(c);
}
