// Shared vocabulary of the engine and the checks. Kept free of behaviour so checks can import it
// without pulling in the runner.

export type JsonSchema = Record<string, any> | boolean;
export type ParamLocation = "path" | "query" | "header" | "cookie";
export type Severity = "critical" | "high" | "medium" | "low";
export type Phase = "examples" | "coverage" | "fuzzing" | "stateful";
export type Mode = "positive" | "negative" | "all";

export interface Parameter {
  name: string;
  in: ParamLocation;
  required: boolean;
  schema: JsonSchema;
  examples: unknown[];
  /** OpenAPI serialization of arrays and objects (query: `form`, `deepObject`...), when declared */
  style?: string;
  explode?: boolean;
  /** the media type of a parameter declared with `content` instead of `schema`: sent as its text (JSON) */
  contentType?: string;
}

export interface MediaSpec {
  schema?: JsonSchema;
  examples: unknown[];
}

export interface HeaderSpec {
  required: boolean;
  schema?: JsonSchema;
}

export interface LinkSpec {
  name: string;
  operationId: string;
  /** target parameter name -> runtime expression such as `$response.body#/id` */
  parameters: Record<string, string>;
}

export interface ResponseSpec {
  status: string; // "200", "4XX" or "default"
  headers: Record<string, HeaderSpec>;
  content: Record<string, MediaSpec>;
  links: LinkSpec[];
  /** the response is a reference the suite could not follow: its pointer and why */
  unresolved?: string;
}

export interface Operation {
  id: string; // operationId, or "METHOD /path" when the contract has none
  method: string; // upper case
  /** the path template sent on the wire: the contract's key without its `#fragment` */
  path: string;
  /** the contract's key when it differs from `path` (`/files/{file_id}#get_shared_link`): identity only */
  pathKey?: string;
  /** the query a contract's key carries (`/responses/{id}?beta=true`): sent first, as written */
  fixedQuery?: string;
  tags: string[];
  parameters: Parameter[];
  body?: {
    required: boolean;
    mediaType: string;
    schema: JsonSchema;
    examples: unknown[];
    /** the media type's OpenAPI Encoding Objects by property (form and multipart bodies) */
    encoding?: Record<string, any>;
  };
  /**
   * The other media types the request body accepts that the suite can write (a form or multipart
   * beside JSON), each drawn too: a server may break on the one the suite did not send.
   */
  otherBodies?: NonNullable<Operation["body"]>[];
  responses: ResponseSpec[];
  /** callbacks the operation declares (OpenAPI Callback Objects), checked by callback_conformance */
  callbacks?: CallbackSpec[];
  /** security requirement names; empty array means explicitly public */
  security: string[][];
  scope?: string;
  raw: Record<string, any>;
  /** parameters or a request body the suite could not resolve (pointer and why): inputs cannot be judged */
  unresolved?: string[];
}

/** One request of a callback: what the implementation sends to the URL the client gave. */
export interface CallbackRequest {
  method: string;
  /** media type -> schema of the body the implementation sends */
  content: Record<string, MediaSpec>;
  bodyRequired: boolean;
  /** statuses the receiver may answer ("200", "2XX", "DEFAULT") */
  statuses: string[];
}

/** An OpenAPI Callback Object entry: `{$request.body#/callbackUrl}` -> its requests. */
export interface CallbackSpec {
  name: string;
  /** the URL template, a runtime expression (`{$request.body#/callbackUrl}/events`) */
  expression: string;
  requests: CallbackRequest[];
  pointer: string;
}

/** Something in the contract the suite cannot honour fully, named by JSON pointer. */
export interface ContractWarning {
  pointer: string;
  message: string;
}

export interface Contract {
  version: "3.0" | "3.1";
  title: string;
  operations: Operation[];
  securitySchemes: Record<string, any>;
  /** every scope the contract names, from the root extension or the operations */
  scopes: string[];
  /** the document as written, except `webhooks`, whose references are resolved and schemas built */
  raw: Record<string, any>;
  /** references not followed, cycles cut, schemas that cannot be compiled (found while running) */
  warnings: ContractWarning[];
}

export interface Case {
  operationId: string;
  pathParams: Record<string, unknown>;
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  /** cookie parameters (absent on cases built before cookies were read, and where none are declared) */
  cookies?: Record<string, unknown>;
  body?: unknown;
  hasBody: boolean;
  /**
   * "edge": allowed by the contract but not representable everywhere (an int64 beyond 2^53);
   * judged by the response checks, never by the data-acceptance checks
   */
  mode: "positive" | "negative" | "edge";
  /** what makes a negative case invalid (or an edge case special), shown in failures */
  mutation?: string;
  /** header names the case must not carry (a removed required header survives default headers) */
  omitHeaders?: string[];
}

export interface PreparedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface ResponseData {
  /** 0 when no response came (see noResponse) */
  status: number;
  /** why no response came: a timeout, a reset, a refused connection. Only not_a_server_error judges it. */
  noResponse?: string;
  headers: Record<string, string>;
  text: string;
  json?: unknown;
  isJson: boolean;
  /** from sending the request to the response's last byte */
  elapsedMs?: number;
}

/** Which credential a request carried; response checks about data only judge the normal key. */
export type KeyRole = "default" | "none" | "invalid" | "scoped" | "other-project" | "low-limit";

export interface Exchange {
  operation: Operation;
  case: Case;
  request: PreparedRequest;
  response: ResponseData;
  phase: Phase;
  keyRole: KeyRole;
  /** set when a probe check built the request on purpose (a removed header, another method) */
  probe?: string;
}

export interface Failure {
  check: string;
  title: string;
  severity: Severity;
  operation: string;
  message: string;
  expected?: string;
  got?: string;
  request: PreparedRequest;
  status?: number;
  phase: Phase;
  seed: number;
  /** how the request was meant (positive, negative, edge), its credential and probe: replay judges as the run did */
  mode?: Case["mode"];
  keyRole?: KeyRole;
  probe?: string;
}

/** What a check says about one piece of evidence; the runner adds operation, seed and phase. */
export interface Finding {
  title?: string;
  message: string;
  expected?: string;
  got?: string;
  request?: PreparedRequest;
  status?: number;
}

/** A contract's documents as loaded by documents.ts: the root and every document its references name. */
export interface DocumentSet {
  /** URL of the root document (`file:` for a path) */
  root: string;
  /** every document read, by URL (fragment removed), the root included */
  docs: Map<string, unknown>;
  /** documents a reference names that could not be read or parsed: why */
  errors: Map<string, string>;
  /** whether any document's text says readOnly or writeOnly (else one schema view serves both sides) */
  marksAccess: boolean;
}
