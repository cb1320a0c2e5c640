#!/usr/bin/env bash
# Creates, with the openssl command, a throw-away test CA (DIR/ca.pem, DIR/ca.key) and a server
# certificate signed by it (DIR/server.pem, DIR/server.key) valid for localhost, 127.0.0.1 and the LLM
# provider host names, so that clients can verify the mock provider's TLS with --cacert DIR/ca.pem.
# Usage: tests/gen-certs.sh DIR
set -euo pipefail
dir=${1:?usage: gen-certs.sh DIR}
mkdir -p "$dir"
cd "$dir"
umask 077

hosts="localhost api.openai.com api.anthropic.com generativelanguage.googleapis.com
cloudcode-pa.googleapis.com dashscope.aliyuncs.com api.deepseek.com ark.cn-beijing.volces.com
aip.baidubce.com qianfan.baidubce.com api.mistral.ai api.groq.com openrouter.ai api.moonshot.cn
*.openai.azure.com"
san="IP:127.0.0.1"
set -f # "*.openai.azure.com" is a name, not a glob
for h in $hosts; do san="$san,DNS:$h"; done

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 \
    -subj "/CN=llmgate test CA" -keyout ca.key -out ca.pem \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"

openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -subj "/CN=localhost" -keyout server.key -out server.csr

cat >server.ext <<EXT
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth
subjectAltName=$san
EXT
openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 30 \
    -extfile server.ext -out server.pem
rm -f server.csr server.ext ca.srl
chmod 644 ca.pem server.pem
echo "$dir/ca.pem $dir/server.pem $dir/server.key"
