<?php
// stream_client.php URL N: N chat requests through PHP's own http(s) stream wrapper (file_get_contents
// with a stream context: PHP's sockets and, over https, its OpenSSL stream with its verify callback; no
// libcurl), with the host's key sk-host. Prints "STATUS BODY" per request.
$url = $argv[1];
$n = (int)($argv[2] ?? 1);
$ctx = stream_context_create([
    'http' => ['method' => 'POST', 'ignore_errors' => true, 'timeout' => 30,
               'header' => "Authorization: Bearer sk-host\r\nContent-Type: application/json\r\n",
               'content' => '{"model":"gpt-4o-mini","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'],
    'ssl' => ['cafile' => getenv('SSL_CERT_FILE'), 'verify_peer' => true, 'verify_peer_name' => true],
]);
for ($i = 0; $i < $n; $i++) {
    $body = file_get_contents($url, false, $ctx);
    $status = isset($http_response_header[0]) ? explode(' ', $http_response_header[0])[1] : '000';
    echo $status, ' ', $body === false ? '(failed)' : $body, "\n";
}
