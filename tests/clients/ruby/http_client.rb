# http_client.rb URL N [stream] [timeouts|notimeouts]: N chat requests from Ruby's Net::HTTP on one session
# (Net::HTTP.start: one kept-alive connection), with the host's key sk-host. Net::HTTP speaks HTTP/1.1
# itself over Ruby's sockets, which are non-blocking: every read is read_nonblock, then IO#wait_readable
# with the read timeout (poll) on EAGAIN; over https the openssl extension on the system's libssl
# (SSL_read/SSL_write, SNI from the URL's host, the CA file $SSL_CERT_FILE). timeouts (the default): open,
# read and write timeouts of 20 s; notimeouts: none (nil, wait for ever). stream: "stream": true, the body
# read piece by piece with read_body's block. Prints one line per request: "STATUS RETRY-AFTER REASON
# BODY" (headers absent: -; the body's newlines as \n), then "pieces=P" (the most read_body pieces of one
# answer) and "sockets=S" (the connections the session opened).
require 'net/http'
require 'uri'

url, n, *flags = ARGV
uri = URI(url)
n = (n || 1).to_i
stream = flags.include?('stream')
body = '{"model":"gpt-4o-mini","max_tokens":16' + (stream ? ',"stream":true' : '') +
       ',"messages":[{"role":"user","content":"hi"}]}'
timeout = flags.include?('notimeouts') ? nil : 20
$stdout.binmode
$stdout.sync = true

http = Net::HTTP.new(uri.host, uri.port)
http.use_ssl = uri.scheme == 'https'
http.ca_file = ENV['SSL_CERT_FILE'] if http.use_ssl?
http.open_timeout = http.read_timeout = http.write_timeout = timeout
sockets = []
pieces = 0
http.start do
  n.times do
    req = Net::HTTP::Post.new(uri.request_uri, 'Authorization' => 'Bearer sk-host', 'Content-Type' => 'application/json')
    req.body = body
    http.request(req) do |res|
      text = +''
      count = 0
      res.read_body { |piece| text << piece; count += 1 }
      pieces = count if count > pieces
      puts [res.code, res['Retry-After'] || '-', res['X-Llmgate-Reason'] || '-', text.gsub("\n", '\n')].join(' ')
    end
    sock = http.instance_variable_get(:@socket)
    sockets << sock unless sockets.any? { |s| s.equal?(sock) }
  end
end
puts "pieces=#{pieces}"
puts "sockets=#{sockets.size}"
