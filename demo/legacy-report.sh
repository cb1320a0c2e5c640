#!/usr/bin/env bash
# A legacy nightly report: asks two LLM providers to summarise a batch of items, one curl call each.
# It knows nothing about llmgate. It reads its keys from the environment, like such scripts do.
ITEMS=${ITEMS:-12}
ok=0 failed=0
for i in $(seq 1 "$ITEMS"); do
    code=$(curl -s -o /tmp/report-$$.json -w '%{http_code}' https://api.openai.com/v1/chat/completions \
        -H "Authorization: Bearer $OPENAI_API_KEY" -H 'Content-Type: application/json' \
        -d "{\"model\":\"gpt-4o-mini\",\"max_tokens\":32,\"messages\":[{\"role\":\"user\",\"content\":\"Summarise item $i\"}]}")
    if [ "$code" = 200 ]; then ok=$((ok + 1)); echo "item $i (openai): ok"; else failed=$((failed + 1)); echo "item $i (openai): FAILED with HTTP $code"; fi
done
for i in $(seq 1 $((ITEMS / 2))); do
    code=$(curl -s -o /tmp/report-$$.json -w '%{http_code}' https://api.anthropic.com/v1/messages \
        -H "x-api-key: $ANTHROPIC_API_KEY" -H 'anthropic-version: 2023-06-01' -H 'Content-Type: application/json' \
        -d "{\"model\":\"claude-sonnet-4-5\",\"max_tokens\":32,\"messages\":[{\"role\":\"user\",\"content\":\"Check item $i\"}]}")
    if [ "$code" = 200 ]; then ok=$((ok + 1)); echo "check $i (anthropic): ok"; else failed=$((failed + 1)); echo "check $i (anthropic): FAILED with HTTP $code"; fi
done
rm -f /tmp/report-$$.json
echo "report: $ok calls succeeded, $failed failed"
[ "$failed" -eq 0 ]
