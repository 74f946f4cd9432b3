filedesc://example.arc 0.0.0.0 20260101000000 text/plain 73
1 0 warcio tests
URL IP-address Archive-date Content-type Archive-length

http://a.example/1 192.0.2.1 20260101000000 text/html 58
HTTP/1.1 200 OK
Content-Type: text/html

<p>page 1</p>

http://a.example/2 192.0.2.1 20260101000000 text/html 58
HTTP/1.1 200 OK
Content-Type: text/html

<p>page 2</p>

