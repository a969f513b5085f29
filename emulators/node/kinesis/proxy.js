'use strict'
// How the Kinesis layer talks to kinesalite, in the same process: bodies in JSON or CBOR as the
// client sent them, a request the layer leaves alone replayed to kinesalite's handler, one it takes
// part in run through it and its answer read back before it is sent.

const crypto = require('crypto')
const { Readable } = require('stream')
const cbor = require('cbor')

const AMZ_CBOR = 'application/x-amz-cbor-1.1'
const AMZ_JSON = 'application/x-amz-json-1.1'

function decode(raw, isCbor) {
  if (raw.length === 0) return null
  try {
    return isCbor ? cbor.Decoder.decodeFirstSync(raw) : JSON.parse(raw.toString('utf8'))
  } catch (e) {
    return null // kinesalite answers the malformed body as Kinesis would
  }
}

function encode(data, isCbor) {
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

function send(res, answer, isCbor) {
  const body = answer.data == null ? Buffer.alloc(0) : encode(answer.data, isCbor)
  res.statusCode = answer.status
  res.setHeader('x-amzn-RequestId', crypto.randomUUID())
  res.setHeader('Content-Type', isCbor ? AMZ_CBOR : AMZ_JSON)
  res.setHeader('Content-Length', body.length)
  res.end(body)
}

/** A blob's length in bytes: a Buffer (CBOR) or base64 text (JSON). */
function blobLength(blob) {
  if (blob == null) return 0
  return Buffer.isBuffer(blob) ? blob.length : Buffer.byteLength(String(blob), 'base64')
}

function error(type, message) {
  return { status: 400, data: { __type: type, message } }
}

/** through(call, data) for kinesalite's request handler. */
function proxy(kinesaliteHandler) {
  /** Runs the call (its data maybe changed) through kinesalite and returns { status, data } instead of sending it. */
  function through(call, data) {
    const body = data === undefined ? call.body : encode(data, call.isCbor)
    return new Promise((resolve) => {
      const chunks = []
      const headers = {}
      kinesaliteHandler(replay(call.req, body), {
        statusCode: 200,
        setHeader(name, value) { headers[name.toLowerCase()] = value },
        getHeader(name) { return headers[name.toLowerCase()] },
        end(chunk) {
          if (chunk) chunks.push(Buffer.from(chunk))
          const out = Buffer.concat(chunks)
          resolve({ status: this.statusCode, data: out.length ? decode(out, call.isCbor) : null })
        },
      })
    })
  }

  return { through }
}

module.exports = { proxy, decode, encode, replay, send, error, blobLength, AMZ_CBOR }
