#!/usr/bin/env bash
# Test certificates and config snippets to run the workloads over TLS, the same way for Brook and Kafka.
#   ./tls-setup.sh [DIR]     (default out/tls)
# Writes, with the JDK's keytool (nothing is downloaded):
#   DIR/ca.pem, DIR/broker.p12 (CN=localhost, SAN localhost + 127.0.0.1, signed by the CA), DIR/truststore.p12
#   DIR/broker-ssl.properties  broker snippet: the listener named PLAINTEXT speaks SSL (the controller
#                              listener stays plaintext), keystore and truststore. Append it to the broker's
#                              properties: EXTRA_BROKER_PROPS=DIR/broker-ssl.properties ./start-kafka.sh, and
#                              for Brook append it to the file given to `bin/brook server`.
#   DIR/client-ssl.properties  client config: CLIENT_CONFIG=DIR/client-ssl.properties ./run.sh ... (or compare.sh)
# env: KEYALG (EC; RSA for RSA-2048 keys, as many deployments use), JAVA_HOME.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
DIR="${1:-$WORK_DIR/tls}"
PASS="bench-tls-secret"
KEYALG="${KEYALG:-EC}"
if [ -n "${JAVA_HOME:-}" ]; then KEYTOOL="$JAVA_HOME/bin/keytool"; else KEYTOOL="$(dirname "$(readlink -f "$JAVA")")/keytool"; fi
case "$KEYALG" in EC) KEYOPTS=(-keyalg EC -groupname secp256r1) ;; RSA) KEYOPTS=(-keyalg RSA -keysize 2048) ;;
  *) echo "KEYALG must be EC or RSA" >&2; exit 1 ;; esac
kt() { "$KEYTOOL" "$@" -storepass "$PASS" < /dev/null > /dev/null; }

rm -rf "$DIR"; mkdir -p "$DIR"; DIR="$(cd "$DIR" && pwd)"
kt -genkeypair -alias ca -dname "CN=Bench CA" -ext bc:c "${KEYOPTS[@]}" -validity 365 -keypass "$PASS" \
   -keystore "$DIR/ca.p12" -storetype PKCS12
kt -exportcert -rfc -alias ca -keystore "$DIR/ca.p12" -storetype PKCS12 -file "$DIR/ca.pem"
kt -genkeypair -alias broker -dname "CN=localhost" "${KEYOPTS[@]}" -validity 365 -keypass "$PASS" \
   -keystore "$DIR/broker.p12" -storetype PKCS12
kt -certreq -alias broker -keystore "$DIR/broker.p12" -storetype PKCS12 -file "$DIR/broker.csr"
kt -gencert -alias ca -keystore "$DIR/ca.p12" -storetype PKCS12 -infile "$DIR/broker.csr" -outfile "$DIR/broker.crt" \
   -rfc -validity 365 -ext "SAN=dns:localhost,ip:127.0.0.1" -ext "EKU=serverAuth,clientAuth"
kt -importcert -noprompt -alias ca -keystore "$DIR/broker.p12" -storetype PKCS12 -file "$DIR/ca.pem"
kt -importcert -noprompt -alias broker -keystore "$DIR/broker.p12" -storetype PKCS12 -file "$DIR/broker.crt"
kt -importcert -noprompt -alias ca -keystore "$DIR/truststore.p12" -storetype PKCS12 -file "$DIR/ca.pem"

cat > "$DIR/broker-ssl.properties" <<PROPS
# TLS on the client listener (named PLAINTEXT in the bench configs), written by tls-setup.sh
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:SSL
ssl.keystore.type=PKCS12
ssl.keystore.location=$DIR/broker.p12
ssl.keystore.password=$PASS
ssl.key.password=$PASS
ssl.truststore.type=PKCS12
ssl.truststore.location=$DIR/truststore.p12
ssl.truststore.password=$PASS
PROPS
cat > "$DIR/client-ssl.properties" <<PROPS
security.protocol=SSL
ssl.truststore.type=PEM
ssl.truststore.location=$DIR/ca.pem
PROPS
echo "TLS files in $DIR: broker-ssl.properties (append to the broker config), client-ssl.properties (CLIENT_CONFIG)"
