# http_client.pl CLIENT URL N [stream]: N chat requests from Perl on one kept-alive connection, with the
# host's key sk-host. CLIENT: tiny (HTTP::Tiny, core Perl: its own sockets, select() before every read with
# its timeout; over https IO::Socket::SSL, i.e. Net::SSLeay on the system's libssl) or lwp (LWP::UserAgent,
# the same over Net::HTTP). Prints one line per request: "STATUS RETRY-AFTER REASON BODY" (headers absent:
# -; the body's newlines as \n). The CA file is $SSL_CERT_FILE.
use strict;
use warnings;
use HTTP::Tiny;

my ($client, $url, $n, $stream) = @ARGV;
$n ||= 1;
my $body = '{"model":"gpt-4o-mini","max_tokens":16' . ($stream ? ',"stream":true' : '')
         . ',"messages":[{"role":"user","content":"hi"}]}';
my %headers = ('Authorization' => 'Bearer sk-host', 'Content-Type' => 'application/json');
my %ssl = (SSL_ca_file => $ENV{SSL_CERT_FILE});
binmode STDOUT;
$| = 1;

my $ask;
if ($client eq 'lwp') {
    require LWP::UserAgent;
    require HTTP::Request;
    my $ua = LWP::UserAgent->new(keep_alive => 1, timeout => 20, ssl_opts => \%ssl);
    $ask = sub {
        my $r = $ua->request(HTTP::Request->new(POST => $url, [%headers], $body));
        return ($r->code, scalar $r->header('Retry-After'), scalar $r->header('X-Llmgate-Reason'), $r->content);
    };
} else {
    my $tiny = HTTP::Tiny->new(keep_alive => 1, timeout => 20, verify_SSL => 1, SSL_options => \%ssl);
    $ask = sub {
        my $r = $tiny->request('POST', $url, {headers => \%headers, content => $body});
        return ($r->{status}, $r->{headers}{'retry-after'}, $r->{headers}{'x-llmgate-reason'}, $r->{content});
    };
}
for (1 .. $n) {
    my ($status, $ra, $reason, $content) = $ask->();
    $content =~ s/\n/\\n/g;
    print join(' ', $status, $ra // '-', $reason // '-', $content), "\n";
}
