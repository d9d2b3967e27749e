// The builder lives in core, shared with the HTTP with-timestamps routes.
export { AlignmentBuilder } from '@sawt/core';
