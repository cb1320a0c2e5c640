// A host of test_relay.sh: the official `openai` npm SDK (installed by the test into node_modules beside
// this file, from package-lock.json). N chat completions to BASE (the SDK's own default when "-") with its
// own key sk-host and the SDK's retries off (a 429 must be absorbed by llmgate), each printed as
// "200 BODY" (the raw answer body) on one line; MODE "stream": one streamed completion, its body written
// raw as it came.
const OpenAI = require("openai");
const [base, mode, n] = process.argv.slice(2);
const client = new OpenAI({apiKey: "sk-host", maxRetries: 0, ...(base !== "-" ? {baseURL: base} : {})});
const params = {model: "gpt-4o-mini", messages: [{role: "user", content: "hi"}]};

(async () => {
    try {
        if (mode === "stream") {
            const res = await client.chat.completions.create({...params, stream: true}).asResponse();
            for await (const chunk of res.body)
                process.stdout.write(chunk);
            return;
        }
        for (let i = 0; i < Number(n); i++) {
            const res = await client.chat.completions.create(params).asResponse();
            console.log(res.status + " " + (await res.text()).trim());
        }
    } catch (e) {
        console.log("error " + (e.status || "") + " " + (e.cause ? e.cause.code || e.cause.message : e.message));
        process.exit(1);
    }
})();
