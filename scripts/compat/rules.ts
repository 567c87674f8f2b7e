// The rule catalogue of the compatibility gate: every finding the gate can report has an id here
// with its level and why. Modelled on oasdiff's checker (github.com/oasdiff/oasdiff, checker/
// rules.go): ERR breaks a client (the gate fails), WARN may break one (shown, does not fail),
// INFO is a compatible change (changelog). A change no rule covers is UNCLASSIFIED: shown, and
// failing only under --strict. Verdicts are direction-aware: in a request the client sends the
// value, so narrowing what is accepted breaks it; in a response (and in a webhook payload, which
// the platform sends) the server sends it, so widening what may arrive breaks the reader.
export type Level = "ERR" | "WARN" | "INFO" | "UNCLASSIFIED";
export type Direction = "request" | "response";

export interface Rule {
  id: string;
  level: Level;
  says: string;
}

const catalogue = new Map<string, Rule>();
function rule(id: string, level: Level, says: string): void {
  catalogue.set(id, { id, level, says });
}

/** The rule with this id; an id missing from the catalogue is a defect of the gate, not of the input. */
export function ruleOf(id: string): Rule {
  const r = catalogue.get(id);
  if (!r) throw new Error(`compat: rule ${id} is not in the catalogue (scripts/compat/rules.ts)`);
  return r;
}
export const allRules = (): Rule[] => [...catalogue.values()];

// ---- Schema rules: one family per keyword, ids `<direction>-<where>-<kind>` as oasdiff names
// them. `where` is body (the whole request or response body), property (anything inside it),
// parameter / parameter-property, header / header-property. Levels are [request, response].
export const schemaWheres = [
  "body",
  "property",
  "parameter",
  "parameter-property",
  "header",
  "header-property",
] as const;
export type Where = (typeof schemaWheres)[number];

const schemaKinds: Record<string, [Level, Level, string]> = {
  "type-changed": [
    "ERR",
    "ERR",
    "the value's type changed: values of the old type are refused or arrive unexpected",
  ],
  "type-generalized": [
    "INFO",
    "ERR",
    "the type now admits more values (integer to number, a type added to a list): fine for senders, new to readers",
  ],
  "type-specialized": [
    "ERR",
    "INFO",
    "the type admits fewer values: clients sending the others are refused, readers see a subset",
  ],
  "type-compatible": [
    "INFO",
    "INFO",
    "a scalar type changed in a media type that carries it as text (form, plain text)",
  ],
  "format-changed": ["ERR", "ERR", "the format of the value changed"],
  "format-added": ["ERR", "INFO", "a format now restricts the value"],
  "format-removed": ["INFO", "ERR", "the format no longer restricts the value"],
  "became-nullable": [
    "INFO",
    "ERR",
    "null is now allowed: readers that do not expect null break (senders are unaffected)",
  ],
  "became-not-nullable": [
    "ERR",
    "INFO",
    "null is no longer allowed: clients sending null are refused",
  ],
  "enum-value-added": [
    "INFO",
    "ERR",
    "a new enum value. V1 (differs from oasdiff, which warns): in a response it is breaking, clients switch on these values, unless the enum is declared x-extensible-enum",
  ],
  "extensible-enum-value-added": [
    "INFO",
    "INFO",
    "a new value of an enum declared x-extensible-enum: true (readers must expect new values)",
  ],
  "enum-value-removed": [
    "ERR",
    "INFO",
    "an enum value is gone: clients sending it are refused (a response simply never sends it)",
  ],
  "became-enum": ["ERR", "INFO", "the value is now restricted to an enum"],
  "enum-removed": [
    "INFO",
    "ERR",
    "the enum restriction is gone: V1 reads this like new values of a response enum (unless x-extensible-enum)",
  ],
  "x-extensible-enum-value-removed": [
    "ERR",
    "INFO",
    "a value of an x-extensible-enum list is gone",
  ],
  "const-added": ["ERR", "INFO", "the value is now fixed by const"],
  "const-removed": ["INFO", "ERR", "the value is no longer fixed by const"],
  "const-changed": ["ERR", "ERR", "the const value changed"],
  "default-value-added": ["INFO", "INFO", "a default value"],
  "default-value-removed": ["INFO", "INFO", "the default value is gone"],
  "default-value-changed": ["INFO", "INFO", "the default value changed"],
  "pattern-added": ["ERR", "INFO", "a pattern now restricts the string"],
  "pattern-changed": [
    "WARN",
    "INFO",
    "the pattern changed: check that it still accepts what clients send",
  ],
  "pattern-removed": ["INFO", "INFO", "the pattern no longer restricts the string"],
  "multiple-of-changed": ["ERR", "ERR", "multipleOf changed to a value that is not compatible"],
  "multiple-of-relaxed": ["INFO", "ERR", "multipleOf now accepts more values"],
  "multiple-of-tightened": ["ERR", "INFO", "multipleOf now accepts fewer values"],
  "all-of-added": [
    "ERR",
    "INFO",
    "a subschema was added to allOf: a request must now satisfy it too",
  ],
  "all-of-removed": ["WARN", "INFO", "a subschema was removed from allOf"],
  "all-of-added-annotation-only": [
    "INFO",
    "INFO",
    "an allOf member with annotations only (description, title...)",
  ],
  "all-of-removed-annotation-only": [
    "INFO",
    "INFO",
    "an allOf member with annotations only was removed",
  ],
  "any-of-added": ["INFO", "INFO", "an anyOf alternative was added"],
  "any-of-removed": ["ERR", "INFO", "an anyOf alternative clients send is gone"],
  "one-of-added": [
    "INFO",
    "ERR",
    "a oneOf alternative was added: readers meet a shape they do not know",
  ],
  "one-of-removed": ["ERR", "INFO", "a oneOf alternative clients send is gone"],
  "wrapped-in-one-of": ["ERR", "ERR", "the schema was wrapped in oneOf"],
  "not-added": ["ERR", "INFO", "a not subschema now excludes values"],
  "not-removed": ["INFO", "ERR", "the not subschema no longer excludes values"],
  "additional-properties-restricted": [
    "ERR",
    "INFO",
    "additionalProperties now refuses properties it accepted",
  ],
  "additional-properties-relaxed": [
    "INFO",
    "ERR",
    "additionalProperties now accepts properties it refused",
  ],
  "discriminator-added": ["INFO", "INFO", "a discriminator was added"],
  "discriminator-removed": ["INFO", "INFO", "the discriminator was removed"],
  "discriminator-property-name-changed": [
    "ERR",
    "ERR",
    "the discriminator's property name changed: senders put the tag in the old property, readers look for it there",
  ],
  "discriminator-mapping-added": ["INFO", "INFO", "a discriminator mapping was added"],
  "discriminator-mapping-deleted": [
    "ERR",
    "ERR",
    "a discriminator mapping entry is gone while its schema is still an alternative: senders' tag value is refused, readers cannot map the value they receive",
  ],
  "discriminator-mapping-deleted-with-alternative": [
    "ERR",
    "INFO",
    "a discriminator mapping entry is gone with its alternative: senders' tag value is refused (readers never receive it)",
  ],
  "discriminator-mapping-changed": [
    "ERR",
    "ERR",
    "a discriminator mapping entry points to another schema: a tag value now means another shape",
  ],
  "unique-items-set": [
    "ERR",
    "INFO",
    "uniqueItems set: arrays with repeated items, accepted before, are refused (V1: as a tightened limit)",
  ],
  "unique-items-unset": ["INFO", "ERR", "uniqueItems removed: readers may now get repeated items"],
  "prefix-items-added": ["INFO", "ERR", "prefixItems added"],
  "prefix-items-removed": ["ERR", "INFO", "prefixItems removed"],
  "content-media-type-changed": ["ERR", "ERR", "contentMediaType changed"],
  "content-encoding-changed": ["ERR", "ERR", "contentEncoding changed"],
  "dependent-required-changed": ["ERR", "ERR", "dependentRequired changed"],
  deprecated: ["INFO", "INFO", "deprecated"],
  "deprecated-with-sunset": ["INFO", "INFO", "deprecated, with a sunset date"],
  "deprecated-sunset-invalid": ["ERR", "ERR", "deprecated with a sunset date that is not a date"],
  reactivated: ["INFO", "INFO", "no longer deprecated"],
  "stability-decreased": [
    "ERR",
    "ERR",
    "x-stability-level went down (stable > beta > alpha > draft)",
  ],
  "stability-increased": ["INFO", "INFO", "x-stability-level went up"],
  "became-read-only": ["INFO", "INFO", "became readOnly"],
  "became-not-read-only": ["INFO", "INFO", "no longer readOnly"],
  "became-write-only": ["INFO", "INFO", "became writeOnly"],
  "became-not-write-only": ["INFO", "INFO", "no longer writeOnly"],
  "required-became-not-write-only": [
    "INFO",
    "WARN",
    "a required property is no longer writeOnly: readers now receive it",
  ],
  "required-became-not-read-only": [
    "ERR",
    "INFO",
    "a required property is no longer readOnly: clients, which never sent it, must now send it",
  ],
  "required-became-write-only": [
    "INFO",
    "WARN",
    "a required property became writeOnly: it is no longer returned, readers relying on it may break (oasdiff: compatible)",
  ],
  "optional-became-write-only": [
    "INFO",
    "WARN",
    "an optional property became writeOnly: it is no longer returned (as an optional property removed)",
  ],
};
// Keywords whose presence only narrows what is valid (added: ERR for a request, removed: ERR
// for a response; a change of their subschema is compared inside).
for (const k of [
  "if",
  "then",
  "else",
  "contains",
  "dependent-required",
  "dependent-schema",
  "pattern-property",
  "property-names",
  "unevaluated-items",
  "unevaluated-properties",
  "content-schema",
]) {
  schemaKinds[`${k}-added`] = ["ERR", "INFO", `${k} now constrains the value`];
  schemaKinds[`${k}-removed`] = ["INFO", "ERR", `${k} no longer constrains the value`];
}
// Bounds: a lower max / higher min refuses values; newly set is a warning on the request side.
for (const [bounds, tightened, loosened, now] of [
  [["max", "exclusive-max", "max-length", "max-items", "max-properties", "max-contains"], "decreased", "increased", "larger"],
  [["min", "exclusive-min", "min-length", "min-items", "min-properties", "min-contains"], "increased", "decreased", "smaller"],
] as const)
  for (const b of bounds) {
    schemaKinds[`${b}-${tightened}`] = [
      "ERR",
      "INFO",
      `${b} ${tightened}: values near the old bound are refused`,
    ];
    schemaKinds[`${b}-${loosened}`] = ["INFO", "ERR", `${b} ${loosened}: ${now} values may now arrive`];
    schemaKinds[`${b}-set`] = [
      "ERR",
      "INFO",
      `${b} set where there was none: values beyond it, accepted before, are refused (V1: as a tightened limit)`,
    ];
    schemaKinds[`${b}-unset`] = ["INFO", "ERR", `${b} no longer bounds the value`];
  }
// Properties of an object: `<direction>-<where>-<kind>` with where property / parameter-property / header-property.
const propertyKinds: Record<string, [Level, Level, string]> = {
  "added-required": [
    "ERR",
    "INFO",
    "a new required property: clients that do not send it are refused",
  ],
  "added-optional": ["INFO", "INFO", "a new optional property (V1: clients ignore unknown fields)"],
  "removed-required": [
    "WARN",
    "ERR",
    "a required property is gone: readers relying on it break; a request field no longer declared is ignored or refused",
  ],
  "removed-optional": [
    "WARN",
    "WARN",
    "an optional property is gone: readers must already cope with its absence",
  ],
  "became-required": ["ERR", "INFO", "the property became required"],
  "became-optional": [
    "INFO",
    "ERR",
    "the property became optional: readers relying on it may not get it",
  ],
};
for (const [k, v] of Object.entries(propertyKinds)) schemaKinds[k] = v;

const directions: Direction[] = ["request", "response"];
for (const dir of directions)
  for (const where of schemaWheres)
    for (const [kind, [req, res, says]] of Object.entries(schemaKinds)) {
      rule(`${dir}-${where}-${kind}`, dir === "request" ? req : res, says);
      // readOnly values are never sent in a request, writeOnly ones never in a response.
      rule(
        `${dir}-${dir === "request" ? "read-only" : "write-only"}-${where}-${kind}`,
        "INFO",
        `${says} (${dir === "request" ? "readOnly: clients do not send it" : "writeOnly: never sent back"})`,
      );
    }

// oasdiff's exceptions to the families, kept: a parameter's default is what the server assumes when
// the client leaves it out, so any change of it changes behaviour; a type change inside an object
// parameter (deepObject) is a warning, the serialised text may still parse.
for (const kind of ["default-value-added", "default-value-removed", "default-value-changed"])
  rule(
    `request-parameter-${kind}`,
    "ERR",
    "the parameter's default changed: clients leaving it out get another behaviour",
  );
rule(
  "request-parameter-property-type-changed",
  "WARN",
  "a property type of an object parameter changed: the serialised text may still parse",
);

// ---- Operation rules.
rule("endpoint-added", "INFO", "a new operation");
rule(
  "api-removed-without-deprecation",
  "ERR",
  "an operation clients call is gone without having been deprecated",
);
rule(
  "api-path-removed-without-deprecation",
  "ERR",
  "a path clients call is gone without having been deprecated",
);
rule(
  "api-removed-with-deprecation",
  "INFO",
  "a deprecated operation without a sunset date was removed",
);
rule(
  "api-path-removed-with-deprecation",
  "INFO",
  "a deprecated path without a sunset date was removed",
);
rule(
  "api-removed-before-sunset",
  "ERR",
  "a deprecated operation was removed before its sunset date",
);
rule(
  "api-path-removed-before-sunset",
  "ERR",
  "a deprecated path was removed before its sunset date",
);
rule("api-sunset-parse", "ERR", "a removed deprecated operation's x-sunset is not a date");
rule("api-path-sunset-parse", "ERR", "a removed deprecated path's x-sunset is not a date");
rule("endpoint-deprecated", "INFO", "the operation is deprecated");
rule("endpoint-deprecated-with-sunset", "INFO", "the operation is deprecated with a sunset date");
rule(
  "api-deprecated-sunset-parse",
  "ERR",
  "the operation is deprecated with an x-sunset that is not a date",
);
rule("endpoint-reactivated", "INFO", "the operation is no longer deprecated");
rule("sunset-deleted", "ERR", "the sunset date of a deprecated operation was deleted");
rule(
  "api-sunset-date-changed-too-small",
  "ERR",
  "the sunset date of a deprecated operation moved earlier",
);
rule("api-stability-decreased", "ERR", "x-stability-level went down");
rule("api-stability-increased", "INFO", "x-stability-level went up");
rule("api-invalid-stability-level", "ERR", "x-stability-level is not draft, alpha, beta or stable");
rule(
  "api-operation-id-changed",
  "INFO",
  "the operationId changed (generated clients rename a method)",
);
rule("api-tag-added", "INFO", "a tag was added");
rule("api-tag-removed", "INFO", "a tag was removed");
rule("api-security-added", "INFO", "a security requirement was added to the operation");
rule("api-security-removed", "INFO", "a security requirement was removed from the operation");
rule("api-security-scope-added", "INFO", "a scope was added to a security requirement");
rule("api-security-scope-removed", "INFO", "a scope was removed from a security requirement");
rule("api-global-security-added", "INFO", "a global security requirement was added");
rule("api-global-security-removed", "INFO", "a global security requirement was removed");
rule(
  "api-global-security-scope-added",
  "INFO",
  "a scope was added to a global security requirement",
);
rule(
  "api-global-security-scope-removed",
  "INFO",
  "a scope was removed from a global security requirement",
);
// Effective security of an operation (its own list, else the document's): the OR of requirements,
// each the AND of schemes with scopes. A client holding the credentials of one old requirement
// keeps working while one new requirement asks for no more than those (same schemes, defined
// alike, no new scope). For webhooks and callbacks the platform sends the credential: the sides swap.
rule(
  "api-security-requirement-added",
  "ERR",
  "an operation that needed no credential now requires one: every existing call is refused",
);
rule(
  "api-security-requirement-scope-added",
  "ERR",
  "a scope was added to the requirement clients meet: their tokens lack it and are refused",
);
rule(
  "api-security-requirement-scheme-added",
  "ERR",
  "a scheme was added to a requirement (AND): clients holding the old credentials lack the new one",
);
rule(
  "api-security-requirement-removed",
  "ERR",
  "a security alternative (OR) clients use is gone and no remaining one asks for their credentials only",
);
rule(
  "api-security-scheme-changed-for-operation",
  "ERR",
  "a security scheme the operation requires changed how the credential is sent or obtained (type, in, name, http scheme, OAuth flow or URL, OpenID Connect URL): existing credentials stop working",
);
rule("api-security-component-added", "INFO", "a security scheme was added");
rule("api-security-component-removed", "INFO", "a security scheme was removed");
rule("api-security-component-changed", "INFO", "a security scheme changed");
rule(
  "platform-scope-changed",
  "ERR",
  "this project's x-platform-scope changed: existing keys without the new scope are refused (V1)",
);
rule("platform-scope-removed", "INFO", "this project's x-platform-scope is no longer required");
rule(
  "platform-scope-added",
  "ERR",
  "this project's x-platform-scope now required: existing keys may be refused (V1)",
);
// Parameters.
rule(
  "new-required-request-parameter",
  "ERR",
  "a new required parameter: clients that do not send it are refused",
);
rule("new-request-path-parameter", "ERR", "a new path parameter");
rule("new-optional-request-parameter", "INFO", "a new optional parameter");
rule(
  "request-parameter-removed",
  "WARN",
  "a parameter is no longer declared: the server ignores or refuses what clients send",
);
rule("request-parameter-removed-with-deprecation", "INFO", "a deprecated parameter was removed");
rule(
  "request-parameter-removed-before-sunset",
  "ERR",
  "a deprecated parameter was removed before its sunset date",
);
rule("request-parameter-became-required", "ERR", "the parameter became required");
rule("request-parameter-became-optional", "INFO", "the parameter became optional");
rule("request-parameter-deprecated", "INFO", "the parameter is deprecated");
rule("request-parameter-reactivated", "INFO", "the parameter is no longer deprecated");
rule(
  "request-parameter-sunset-deleted",
  "ERR",
  "the sunset date of a deprecated parameter was deleted",
);
rule(
  "request-parameter-serialization-changed",
  "ERR",
  "style, explode or allowReserved changed: clients serialise the value differently",
);
rule("request-parameter-content-changed", "ERR", "the parameter's media type changed");
rule(
  "request-parameter-allow-empty-value-removed",
  "ERR",
  "allowEmptyValue is gone: clients sending the parameter empty are refused",
);
rule("request-parameter-allow-empty-value-added", "INFO", "the parameter may now be sent empty");
rule("request-parameter-sunset-parse", "ERR", "a deprecated parameter's x-sunset is not a date");
rule(
  "request-parameter-sunset-date-changed-too-small",
  "ERR",
  "the sunset date of a deprecated parameter moved earlier",
);
// Request body.
rule("request-body-added-required", "ERR", "a required request body where there was none");
rule("request-body-added-optional", "INFO", "an optional request body where there was none");
rule("request-body-removed", "ERR", "the request body is no longer accepted");
rule("request-body-became-required", "ERR", "the request body became required");
rule("request-body-became-optional", "INFO", "the request body became optional");
rule("request-body-media-type-added", "INFO", "a further request media type");
rule(
  "request-body-media-type-name-generalized",
  "INFO",
  "a request media type became more general (application/merge-patch+json to application/json): what clients send is still accepted",
);
rule(
  "request-body-media-type-name-specialized",
  "ERR",
  "a request media type became more specific: clients sending the general one are refused",
);
rule("request-body-media-type-name-changed", "INFO", "a request media type's parameters changed");
rule("request-body-media-type-removed", "ERR", "clients sending this media type are refused");
rule("request-body-media-type-schema-added", "ERR", "a schema now restricts a request media type");
rule(
  "request-body-media-type-schema-removed",
  "INFO",
  "the request media type has no schema any more",
);
// Responses (V1 differs from oasdiff: any status removal is breaking, not only a success status).
rule("response-success-status-added", "INFO", "a new success status");
rule(
  "response-non-success-status-added",
  "INFO",
  "a new error status (V1: new error codes are additive)",
);
rule("response-success-status-removed", "ERR", "a success status clients handle is gone");
rule(
  "response-non-success-status-removed",
  "ERR",
  "an error status clients handle is gone (V1: breaking; oasdiff calls it INFO)",
);
rule("response-media-type-added", "INFO", "a further response media type");
rule(
  "response-media-type-name-specialized",
  "INFO",
  "a response media type became more specific (application/json to application/problem+json)",
);
rule(
  "response-media-type-name-generalized",
  "ERR",
  "a response media type became more general: clients parsing the specific one may get another",
);
rule("response-media-type-name-changed", "INFO", "a response media type's parameters changed");
rule("response-media-type-removed", "ERR", "clients parsing this media type get another");
rule(
  "response-body-media-type-schema-added",
  "INFO",
  "a schema now describes a response media type",
);
rule(
  "response-body-media-type-schema-removed",
  "WARN",
  "a response media type no longer has a schema",
);
rule("response-header-added", "INFO", "a new response header");
rule("required-response-header-removed", "ERR", "a required response header is gone");
rule("optional-response-header-removed", "WARN", "an optional response header is gone");
rule("response-header-became-optional", "ERR", "a response header clients rely on may be missing");
rule("response-header-became-required", "INFO", "a response header is now always sent");
rule(
  "response-header-serialization-changed",
  "ERR",
  "a response header's style or explode changed: readers parse the value differently",
);
// Webhooks (the platform sends the payload: its body is judged as a response).
rule("callback-added", "INFO", "the server now calls a new callback");
rule("callback-removed", "ERR", "a callback receivers handle is no longer called");
rule("webhook-added", "INFO", "a new webhook event");
rule("webhook-removed", "ERR", "a webhook event receivers handle is gone");
// Components only matter where they are used; a removed one is noted.
rule("api-schema-removed", "INFO", "a component schema was removed");
rule("unclassified", "UNCLASSIFIED", "a change no rule covers: review it (fails under --strict)");
