// A Node.js client for test_relay.sh: N POSTs of a chat request to URL (its own key sk-host) with `fetch`
// or `https.request` (MODE), each answer printed as "STATUS BODY" on one line; MODE "stream": one
// https.request whose body is written raw.
const https = require("https");
const [url, mode, n] = process.argv.slice(2);
const body = JSON.stringify({model: "gpt-4o-mini", messages: [{role: "user", content: "hi"}]});
const headers = {"Authorization": "Bearer sk-host", "Content-Type": "application/json"};

function viaHttps() {
    return new Promise((resolve, reject) => {
        const req = https.request(url, {method: "POST", headers}, (res) => {
            const parts = [];
            res.on("data", (c) => parts.push(c));
            res.on("end", () => resolve([res.statusCode, Buffer.concat(parts)]));
            res.on("error", reject);
        });
        req.on("error", reject);
        req.end(body);
    });
}

async function viaFetch() {
    const res = await fetch(url, {method: "POST", headers, body});
    return [res.status, Buffer.from(await res.arrayBuffer())];
}

(async () => {
    try {
        if (mode === "stream") {
            const [, b] = await viaHttps();
            process.stdout.write(b);
            return;
        }
        for (let i = 0; i < Number(n); i++) {
            const [status, b] = await (mode === "fetch" ? viaFetch() : viaHttps());
            console.log(status + " " + b.toString().trim());
        }
    } catch (e) {
        console.log("error " + (e.cause ? e.cause.code || e.cause.message : e.code || e.message));
        process.exit(1);
    }
})();
