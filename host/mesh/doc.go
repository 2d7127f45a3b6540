// Package mesh puts many machines on one board over NATS (issue 21).
//
// A hub (notch-web --hub) embeds a NATS server with JetStream: a TLS
// listener for machines (its self-signed certificate is made in the DSH home
// on first start, or --tls-cert/--tls-key), an nkey per paired machine, and
// two KV buckets — every machine's latest board, and its presence, a key
// with a TTL that the machine's beats renew — which only the hub writes. A
// machine (--join) dials out, publishes its own board, cards and beat on its
// own subjects only (notch.m.<name>.…, a namespace no service of the hub
// shares; the hub's permissions refuse anything else), and republishes them
// whenever it (re)connects. --nats URL uses an existing NATS deployment
// instead of the embedded one; there each machine writes its own keys.
//
// Pairing: notch-web pair writes a one-time secret (hashed) into the hub's
// DSH home and prints a join code — the hub's address, its certificate's
// SHA-256 and the secret, valid 10 minutes. notch-web join CODE dials the
// hub over TLS pinned to that fingerprint, sends its new nkey's public half,
// and keeps the seed (mode 0600) in its own DSH home, with the code's id: the
// same code again on that machine is ErrJoined (run --join without one).
// The pairing request carries the secret again, and a used or expired code
// logs in as nothing. A machine the hub refuses — revoked, or forgotten —
// stops dialling and goes on serving its own board, which says why it is not
// on the hub (HubLink), as does a wrong certificate pin; its log says so once
// (ErrRefused says how to pair again). Revoke ends every connection of the
// key (the server's own list), and the hub takes no board of a name it has
// not paired now.
//
// On the hub's board the other machines' rows are keyed (machine, session):
// their ids become "machine/session". When rows of more than one machine
// are on the board each carries its machine in project; a machine whose
// presence expired keeps its rows, labelled "(unknown)", and the board draws
// them as unknown (docs/many-machines.md). Nothing here knows HTTP.
//
// The lasting history (feed.go): each machine keeps its own (host/store),
// and the hub pulls every machine's into its own — the machine says how far
// its history goes, the hub asks for what follows its mark, in bounded
// batches, and writes each once by (machine, sequence).
//
// Without --hub, --join or --nats nothing of this starts.
package mesh
