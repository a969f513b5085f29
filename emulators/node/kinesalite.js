#!/usr/bin/env node
// Starts kinesalite (the pinned Kinesis emulator) for period-tables tests and the local run.
//
//   node kinesalite.js --port <port> [--host 127.0.0.1] [--createStreamMs <ms>] [other kinesalite options]
//
// - Listens on 127.0.0.1 only (kinesalite's own cli.js binds all interfaces).
// - Fills StreamName from StreamARN in request bodies before kinesalite validates them:
//   kinesalite 3.3.3 predates StreamARN, and Flink's KinesisStreamsSource (connector 4.3.0)
//   addresses streams by ARN only. Works for JSON and CBOR bodies.
// - Account 000000000000 and region us-east-1 (so stream ARNs are
//   arn:aws:kinesis:us-east-1:000000000000:stream/<name>), unless AWS_ACCOUNT_ID/AWS_REGION are set.
// - Exits when its standard input closes, so it never outlives the JVM that started it.
'use strict'

process.env.AWS_ACCOUNT_ID = process.env.AWS_ACCOUNT_ID || '000000000000'
process.env.AWS_REGION = process.env.AWS_REGION || 'us-east-1'

const { Readable } = require('stream')
const argv = require('minimist')(process.argv.slice(2))
const cbor = require('cbor')
const kinesalite = require('kinesalite')

const AMZ_CBOR = 'application/x-amz-cbor-1.1'
const STREAM_IN_ARN = /^arn:[^:]+:kinesis:[^:]*:[^:]*:stream\/(.+)$/

if (!argv.port) {
  console.error('usage: node kinesalite.js --port <port> [--host 127.0.0.1] [kinesalite options]')
  process.exit(2)
}
const host = argv.host || '127.0.0.1'

const server = kinesalite(argv)
const kinesaliteHandler = server.listeners('request')[0]
server.removeAllListeners('request')
server.on('request', (req, res) => {
  const chunks = []
  req.on('data', (chunk) => chunks.push(chunk))
  req.on('end', () => kinesaliteHandler(replay(req, withStreamName(req, Buffer.concat(chunks))), res))
})

server.listen(argv.port, host, () => {
  const address = server.address()
  console.log('Listening at http://%s:%s', address.address, address.port)
})

process.stdin.on('end', () => process.exit(0))
process.stdin.on('error', () => process.exit(0))
process.stdin.resume()

/** The body with StreamName derived from StreamARN when only the ARN is given; else unchanged. */
function withStreamName(req, body) {
  if (body.length === 0) return body
  const isCbor = (req.headers['content-type'] || '').split(';')[0].trim() === AMZ_CBOR
  let data
  try {
    data = isCbor ? cbor.Decoder.decodeFirstSync(body) : JSON.parse(body.toString('utf8'))
  } catch (e) {
    return body // let kinesalite answer the malformed body as Kinesis would
  }
  if (data == null || typeof data !== 'object' || data.StreamName != null || typeof data.StreamARN !== 'string') {
    return body
  }
  const match = STREAM_IN_ARN.exec(data.StreamARN)
  if (!match) return body
  data.StreamName = match[1]
  return isCbor ? cbor.Encoder.encodeOne(data) : Buffer.from(JSON.stringify(data), 'utf8')
}

/** A request stand-in that replays the (possibly rewritten) body to kinesalite's handler. */
function replay(req, body) {
  const copy = Readable.from(body.length ? [body] : [])
  copy.headers = Object.assign({}, req.headers, { 'content-length': String(body.length) })
  copy.method = req.method
  copy.url = req.url
  return copy
}
