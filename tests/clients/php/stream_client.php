<?php
// stream_client.php URL N [PROTOCOL] [stream]: N chat requests through PHP's own http(s) stream wrapper
// (file_get_contents with a stream context: PHP's sockets and, over https, its OpenSSL stream with its
// verify callback; no libcurl), with the host's key sk-host, in HTTP/PROTOCOL (PHP's default, 1.0: the
// answer is read up to the end of the connection); "stream" asks for an event stream. Prints "STATUS BODY"
// per request, followed by " reason=R retry_after=S" when the answer carries X-Llmgate-Reason.
$url = $argv[1];
$n = (int)($argv[2] ?? 1);
$body = '{"model":"gpt-4o-mini","max_tokens":16' . (($argv[4] ?? '') === 'stream' ? ',"stream":true' : '')
      . ',"messages":[{"role":"user","content":"hi"}]}';
$ctx = stream_context_create([
    'http' => ['method' => 'POST', 'ignore_errors' => true, 'timeout' => 30, 'protocol_version' => $argv[3] ?? '1.0',
               'header' => "Authorization: Bearer sk-host\r\nContent-Type: application/json\r\n",
               'content' => $body],
    'ssl' => ['cafile' => getenv('SSL_CERT_FILE'), 'verify_peer' => true, 'verify_peer_name' => true],
]);
for ($i = 0; $i < $n; $i++) {
    $answer = file_get_contents($url, false, $ctx);
    $status = isset($http_response_header[0]) ? explode(' ', $http_response_header[0])[1] : '000';
    $extra = ['reason' => null, 'retry_after' => '-'];
    foreach ($http_response_header ?? [] as $h) {
        if (stripos($h, 'x-llmgate-reason:') === 0)
            $extra['reason'] = trim(substr($h, 17));
        if (stripos($h, 'retry-after:') === 0)
            $extra['retry_after'] = trim(substr($h, 12));
    }
    echo $status, ' ', $answer === false ? '(failed)' : str_replace("\n", '\n', $answer),
         $extra['reason'] === null ? '' : " reason={$extra['reason']} retry_after={$extra['retry_after']}", "\n";
}
