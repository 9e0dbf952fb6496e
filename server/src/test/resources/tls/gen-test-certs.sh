#!/bin/sh
# Makes the TLS tests' certificates (TlsTest): a CA, two server certificates it signed (the second
# one for the test that swaps certificates with CONFIG SET), a client certificate, the first
# server key again encrypted with the password "spinel-pass" and in OpenSSL's older PKCS#1 form,
# and a certificate from another CA (a client the server must refuse). Valid for 100 years, so
# that the committed files do not expire under the tests; run again (openssl needed) only to
# change them.
set -e
cd "$(dirname "$0")"
days=36500
openssl req -x509 -new -nodes -newkey rsa:2048 -sha256 -days $days -keyout ca.key -out ca.crt \
    -subj "/O=Spinel Test/CN=Spinel Test CA"
cert() { # name, common name, extensions
    openssl req -new -nodes -newkey rsa:2048 -keyout "$1.key" -out "$1.csr" -subj "/O=Spinel Test/CN=$2"
    printf '%s\n' "$3" > "$1.ext"
    openssl x509 -req -sha256 -days $days -in "$1.csr" -CA "${4:-ca}.crt" -CAkey "${4:-ca}.key" -CAcreateserial \
        -out "$1.crt" -extfile "$1.ext"
    rm -f "$1.csr" "$1.ext"
}
server_ext='keyUsage = digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth, clientAuth
subjectAltName = DNS:localhost, IP:127.0.0.1'
cert server "Server-1" "$server_ext"
cert server2 "Server-2" "$server_ext"
cert client "Client-1" 'keyUsage = digitalSignature, keyEncipherment
extendedKeyUsage = clientAuth'
openssl req -x509 -new -nodes -newkey rsa:2048 -sha256 -days $days -keyout other-ca.key -out other-ca.crt \
    -subj "/O=Elsewhere/CN=Other CA"
cert stranger "Stranger" 'extendedKeyUsage = clientAuth' other-ca
openssl pkcs8 -topk8 -v2 aes-256-cbc -in server.key -out server-encrypted.key -passout pass:spinel-pass
openssl rsa -in server.key -traditional -out server-pkcs1.key
rm -f ca.srl other-ca.srl other-ca.key
