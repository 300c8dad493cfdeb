/**
 * The document's info.description: what the docs page shows first. It opens with the steps
 * of a first sale, each a link to its operation on the page (`#/{tag}/{operationId}`, the
 * page's deep links); the other links are relative to the page and served by this gateway
 * (test/gateway/openapi.test.ts follows every one). Each step's pre-filled example works
 * unchanged (test/gateway/docs-page.test.ts runs them in a browser).
 */
export function startHere(authPrefix: string): string {
  return `**Start here**: a first sale in five steps, each one an operation below (open it, *Try it out*, *Execute*; the bodies are pre-filled and work as they are).

1. [Sign up](#/auth/signUp) (\`POST ${authPrefix}/users\`): a user and its first company. Put in your own e-mail address and password if you like.
2. **Authorize** (the button on the right): under *password*, the e-mail address and password of step 1; leave client_id and client_secret empty.
3. [Create an event](#/events/createEvent): copy the \`guid\` of the answer.
4. [Create a ticket](#/tickets/createTicket) of that event (its \`guid\` as *eventGuid*): the example puts 100 in stock, on sale at once.
5. [Reserve](#/stock/reserveTicket) two of them (the ticket's \`guid\`), then [confirm](#/stock/confirmReservation) the reservation (its \`guid\`) to sell them.

Events and their tickets, behind bearer tokens scoped to companies: a token covers its user's companies, and the *Company* header narrows them. Errors are RFC 9457 problem details; \`422\` lists every invalid field.

More: [this document as JSON](openapi.json) (for client generators), [the API index](./), [health](healthz). The guides are in the project's \`docs/\` folder.`;
}
