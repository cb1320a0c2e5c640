<?php
// guzzle_client.php MODE URL [ARG [ARG]]: chat requests through the real Guzzle (Debian's
// php-guzzlehttp-guzzle, with its own autoloader), the way a PHP site calls an LLM API: one Client with the
// site's key ($HOST_KEY, default sk-host) in its default headers, JSON bodies, the CA of $SSL_CERT_FILE.
// $CONNECT_TO (HOST:PORT:ADDR:PORT) is passed to libcurl as CURLOPT_CONNECT_TO. One line per result:
//   sync URL N       $client->post() N times (CurlHandler: curl_exec): "STATUS KEY MODEL"
//   errors URL       a request that ends in an error, with http_errors on (the exception Guzzle throws),
//                    off (the response), and on through postAsync()->wait() (CurlMultiHandler):
//                    "on|off|async CLASS STATUS retry_after=S reason=R type=T" (T: the JSON error's type)
//   pool URL N C     N requests through a Pool (CurlMultiHandler: curl_multi_exec + curl_multi_select), at
//                    most C at once, then C more all at once through Promise\Utils::settle; request I sends
//                    the model gpt-4o-mini-rI and the header x-mock-tag: gz-rI. Per fulfilled promise
//                    "pool|all I STATUS MODEL TAGCOUNT KEY", per rejected one "pool|all I rejected CLASS"
//   stream URL       'stream' => true (StreamHandler: PHP's http stream wrapper), an event stream read line
//                    by line: "stream STATUS lines=L spread_ms=S intact=yes|no body=BODY" (S: from the first
//                    data line read to the last; intact: the body's SHA-256 is the mock's x-mock-body-sha256)
//   sink URL         an event stream on the curl handler into a sink stream that counts its writes, with
//                    on_headers and progress callbacks: "sink STATUS writes=W on_headers=CALLS:STATUS:TYPE
//                    progress=P intact=yes|no body=BODY"
//   retry URL        Guzzle's RetryMiddleware on top (429 and 5xx retried up to 3 times, 20 ms apart),
//                    http_errors off: "retry STATUS tries=T reason=R"
//   big URL BYTES sync|async [MODEL]   a JSON body of about BYTES bytes (from 1 MB Guzzle hands libcurl the
//                    body through CURLOPT_READFUNCTION, with CURLOPT_UPLOAD), through post() or
//                    postAsync()->wait(), http_errors off: "big STATUS KEY MODEL SHA256" (SHA256: of the body
//                    sent; MODEL: the answer's)
//   plain URL OTHER  one post to the provider's URL, then two to OTHER (no provider's), on one Client,
//                    http_errors off: "plain STATUS KEY REASON" each (KEY: the mock's x-mock-key)
// BODY has its newlines written as \n; "-" stands for an absent value.
require_once 'GuzzleHttp/autoload.php';

use GuzzleHttp\Client;
use GuzzleHttp\HandlerStack;
use GuzzleHttp\Middleware;
use GuzzleHttp\Pool;
use GuzzleHttp\Promise\Utils as Promises;
use GuzzleHttp\Psr7\StreamDecoratorTrait;
use GuzzleHttp\Psr7\Utils as Psr7Utils;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\StreamInterface;

[, $mode, $url] = $argv;

/* A sink that counts the writes the curl handler makes into it. */
final class CountingStream implements StreamInterface
{
    use StreamDecoratorTrait;
    public int $writes = 0;

    public function write($string): int
    {
        $this->writes++;
        return $this->stream->write($string);
    }
}

/* A Client as a PHP site makes one; $stack replaces the default handler stack. */
function client(?HandlerStack $stack = null): Client
{
    $cfg = ['headers' => ['Authorization' => 'Bearer ' . (getenv('HOST_KEY') ?: 'sk-host')], 'timeout' => 30,
            'verify' => getenv('SSL_CERT_FILE') ?: true];
    if (getenv('CONNECT_TO'))
        $cfg['curl'] = [CURLOPT_CONNECT_TO => [getenv('CONNECT_TO')]];
    if ($stack)
        $cfg['handler'] = $stack;
    return new Client($cfg);
}

/* The JSON body of a chat request. */
function chat(string $model = 'gpt-4o-mini', bool $stream = false): array
{
    $body = ['model' => $model, 'max_tokens' => 16, 'messages' => [['role' => 'user', 'content' => 'hi']]];
    if ($stream)
        $body['stream'] = true;
    return $body;
}

/* The field of a response's JSON body, "-" when absent. */
function field(ResponseInterface $r, string $name): string
{
    return (string)(json_decode((string)$r->getBody(), true)[$name] ?? '-');
}

/* A header of a response, "-" when absent. */
function header_of(ResponseInterface $r, string $name): string
{
    return $r->getHeaderLine($name) ?: '-';
}

/* "yes" when $text is the whole body the mock meant to send (its x-mock-body-sha256). */
function intact(ResponseInterface $r, string $text): string
{
    return hash('sha256', $text) === $r->getHeaderLine('x-mock-body-sha256') ? 'yes' : 'no';
}

/* "CLASS STATUS retry_after=S reason=R type=T" of an error and its response. */
function error_line(string $class, ?ResponseInterface $r): string
{
    if (!$r)
        return "$class none";
    $j = json_decode((string)$r->getBody(), true);
    return sprintf('%s %d retry_after=%s reason=%s type=%s', $class, $r->getStatusCode(), header_of($r, 'Retry-After'),
                   header_of($r, 'X-Llmgate-Reason'), $j['error']['type'] ?? '-');
}

/* "HOW I STATUS MODEL TAGCOUNT KEY" of a fulfilled promise. */
function pool_line(string $how, int $i, ResponseInterface $r): void
{
    printf("%s %d %d %s %s %s\n", $how, $i, $r->getStatusCode(), field($r, 'model'), header_of($r, 'x-mock-tag-count'),
           field($r, 'mock_key'));
}

switch ($mode) {
case 'sync':
    $c = client();
    for ($i = 0, $n = (int)($argv[3] ?? 1); $i < $n; $i++) {
        $r = $c->post($url, ['json' => chat()]);
        echo $r->getStatusCode(), ' ', field($r, 'mock_key'), ' ', field($r, 'model'), "\n";
    }
    break;

case 'errors':
    $c = client();
    $lines = [];
    try {
        $lines[] = 'on ' . error_line('none', $c->post($url, ['json' => chat()]));
    } catch (GuzzleHttp\Exception\RequestException $e) {
        $lines[] = 'on ' . error_line(get_class($e), $e->getResponse());
    }
    $lines[] = 'off ' . error_line('none', $c->post($url, ['json' => chat(), 'http_errors' => false]));
    try {
        $lines[] = 'async ' . error_line('none', $c->postAsync($url, ['json' => chat()])->wait());
    } catch (GuzzleHttp\Exception\RequestException $e) {
        $lines[] = 'async ' . error_line(get_class($e), $e->getResponse());
    }
    echo implode("\n", $lines), "\n";
    break;

case 'pool':
    [$n, $concurrency] = [(int)$argv[3], (int)$argv[4]];
    $c = client();
    $send = fn (int $i) => $c->postAsync($url, ['json' => chat("gpt-4o-mini-r$i"), 'headers' => ['x-mock-tag' => "gz-r$i"]]);
    $requests = function () use ($n, $send) {
        for ($i = 0; $i < $n; $i++)
            yield $i => fn () => $send($i);
    };
    (new Pool($c, $requests(), [
        'concurrency' => $concurrency,
        'fulfilled' => fn (ResponseInterface $r, int $i) => pool_line('pool', $i, $r),
        'rejected' => fn ($e, int $i) => printf("pool %d rejected %s\n", $i, get_class($e)),
    ]))->promise()->wait();
    $promises = [];
    for ($i = $n; $i < $n + $concurrency; $i++)
        $promises[$i] = $send($i);
    foreach (Promises::settle($promises)->wait() as $i => $s) {
        if ($s['state'] === 'fulfilled')
            pool_line('all', $i, $s['value']);
        else
            printf("all %d rejected %s\n", $i, get_class($s['reason']));
    }
    break;

case 'stream':
    // line by line, as PHP's SSE clients read (Psr7\Utils::readLine reads a byte at a time)
    $r = client()->post($url, ['json' => chat('gpt-4o-mini', true), 'stream' => true]);
    $body = $r->getBody();
    $text = '';
    $lines = 0;
    $first = $last = 0.0;
    while (!$body->eof()) {
        $line = Psr7Utils::readLine($body);
        $text .= $line;
        if (strncmp($line, 'data: ', 6) === 0) {
            $last = microtime(true);
            $first = $lines++ ? $first : $last;
        }
    }
    printf("stream %d lines=%d spread_ms=%d intact=%s body=%s\n", $r->getStatusCode(), $lines,
           (int)(($last - $first) * 1000), intact($r, $text), str_replace("\n", '\n', $text));
    break;

case 'sink':
    $sink = new CountingStream(Psr7Utils::streamFor(fopen('php://temp', 'w+')));
    $seen = [0, '-', '-'];
    $progress = 0;
    $r = client()->post($url, ['json' => chat('gpt-4o-mini', true), 'sink' => $sink,
        'on_headers' => function (ResponseInterface $h) use (&$seen) {
            $seen = [$seen[0] + 1, $h->getStatusCode(), explode(';', $h->getHeaderLine('Content-Type'))[0]];
        },
        'progress' => function () use (&$progress) { $progress++; }]);
    $text = (string)$r->getBody();
    printf("sink %d writes=%d on_headers=%s progress=%d intact=%s body=%s\n", $r->getStatusCode(), $sink->writes,
           implode(':', $seen), $progress, intact($r, $text), str_replace("\n", '\n', $text));
    break;

case 'retry':
    $tries = 0;
    $stack = HandlerStack::create();
    $stack->push(Middleware::retry(
        function (int $retries, $request, ?ResponseInterface $r) use (&$tries) {
            $tries++;
            return $retries < 3 && $r && ($r->getStatusCode() == 429 || $r->getStatusCode() >= 500);
        },
        fn () => 20));
    $r = client($stack)->post($url, ['json' => chat(), 'http_errors' => false]);
    printf("retry %d tries=%d reason=%s\n", $r->getStatusCode(), $tries, header_of($r, 'X-Llmgate-Reason'));
    break;

case 'big':
    $body = chat($argv[5] ?? 'gpt-4o-mini');
    $body['messages'][0]['content'] = str_repeat('y', (int)$argv[3]);
    $c = client();
    $opts = ['json' => $body, 'http_errors' => false];
    $r = $argv[4] === 'async' ? $c->postAsync($url, $opts)->wait() : $c->post($url, $opts);
    printf("big %d %s %s %s\n", $r->getStatusCode(), field($r, 'mock_key'), field($r, 'model'),
           hash('sha256', json_encode($body)));
    break;

case 'plain':
    $c = client();
    foreach ([$url, $argv[3], $argv[3]] as $to) {
        $r = $c->post($to, ['json' => chat(), 'http_errors' => false]);
        printf("plain %d %s %s\n", $r->getStatusCode(), header_of($r, 'x-mock-key'), header_of($r, 'X-Llmgate-Reason'));
    }
    break;

default:
    fwrite(STDERR, "guzzle_client.php: unknown mode $mode\n");
    exit(2);
}
