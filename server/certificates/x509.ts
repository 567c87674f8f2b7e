// @peculiar/x509 needs a Reflect metadata polyfill evaluated before it; importing the library
// only through this module guarantees the order.
import "reflect-metadata";
export * from "@peculiar/x509";
