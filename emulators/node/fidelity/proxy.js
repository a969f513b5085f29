'use strict'
// How the DynamoDB layer talks to dynalite, in the same process: a request it leaves alone is
// handed over unchanged; one it takes part in is run through dynalite and its answer read back
// (and maybe changed) before it is sent, with DynamoDB's headers and error shapes.

const { EventEmitter } = require('events')
const crc32 = require('buffer-crc32')

const PREFIX = 'com.amazonaws.dynamodb.v20120810#'

function ok(data) {
  return { status: 200, data }
}

function error(status, type, message, prefix) {
  return { status, data: { __type: (prefix || PREFIX) + type, message } }
}

function validation(message) {
  return error(400, 'ValidationException', message, 'com.amazon.coral.validate#')
}

function send(res, answer) {
  const body = Buffer.from(answer.data == null ? '' : JSON.stringify(answer.data), 'utf8')
  res.statusCode = answer.status
  res.setHeader('x-amzn-RequestId', 'fidelity' + Math.random().toString(36).slice(2).toUpperCase().padEnd(44, '0'))
  res.setHeader('x-amz-crc32', crc32.unsigned(body))
  res.setHeader('Content-Type', 'application/x-amz-json-1.0')
  res.setHeader('Content-Length', body.length)
  res.end(body)
}

function replay(req, body) {
  const copy = new EventEmitter()
  copy.headers = Object.assign({}, req.headers, { 'content-length': String(body.length) })
  copy.method = req.method
  copy.url = req.url
  setImmediate(() => {
    if (body.length) copy.emit('data', body)
    copy.emit('end')
  })
  return copy
}

function captured(resolve) {
  const headers = {}
  return {
    statusCode: 200,
    setHeader(name, value) { headers[name.toLowerCase()] = value },
    getHeader(name) { return headers[name.toLowerCase()] },
    end(body) {
      let data = null
      if (body && body.length) {
        try {
          data = JSON.parse(body.toString())
        } catch (e) {
          data = { raw: body.toString() }
        }
      }
      resolve({ status: this.statusCode, data, headers })
    },
  }
}

/** forward, through and call for dynalite's request handler. */
function proxy(dynaliteHandler) {
  /** Hands the request, unchanged, to dynalite. */
  function forward(req, res, body) {
    dynaliteHandler(replay(req, body), res)
  }

  /** Runs the request (its data maybe changed) through dynalite and returns { status, data } instead of sending it. */
  function through(req, data) {
    return new Promise((resolve) => {
      const fake = captured(resolve)
      dynaliteHandler(replay(req, Buffer.from(JSON.stringify(data), 'utf8')), fake)
    })
  }

  /** An internal call to dynalite, as a client with valid-looking credentials would make it. */
  function call(operation, data) {
    const req = {
      method: 'POST',
      url: '/',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': 'DynamoDB_20120810.' + operation,
        'x-amz-date': '20260101T000000Z',
        authorization: 'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, '
          + 'SignedHeaders=host, Signature=0',
      },
    }
    return through(req, data)
  }

  return { forward, through, call }
}

module.exports = { proxy, send, ok, error, validation, PREFIX }
