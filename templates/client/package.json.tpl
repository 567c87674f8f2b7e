{
  "name": "@platform-api/client",
  "version": "{{version}}",
  "description": "Typed client for the Developer Platform API, generated from its OpenAPI contract",
  "type": "module",
  "license": "MIT",
  "engines": {
    "node": ">=20"
  },
  "exports": {
    ".": {
      "node": {
        "types": "./dist/node.d.ts",
        "default": "./dist/node.js"
      },
      "default": {
        "types": "./dist/index.d.ts",
        "default": "./dist/index.js"
      }
    },
    "./webhooks": {
      "types": "./dist/webhooks.d.ts",
      "default": "./dist/webhooks.js"
    },
    "./package.json": "./package.json"
  },
  "types": "./dist/node.d.ts",
  "files": [
    "dist",
    "README.md"
  ],
  "sideEffects": false,
  "dependencies": {
    "openapi-fetch": "{{openapiFetchVersion}}"
  }
}
