// The account's identity reviews (docs/api.md, "Identity verification"), HMAC-authenticated.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { decideIdentityReview, getIdentityReview, listIdentityReviews } from '../../domain/identity/reviews.js';
import { ErrorResponse } from '../../schemas/common.js';
import {
  IdentityReview,
  IdentityReviewDetail,
  IdentityReviewList,
  ReviewDecision,
  ReviewListQuery,
  ReviewParams,
} from '../../schemas/identity.js';

export function identityReviewRoutes(deps: Deps) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const tags = ['identity'];
    app.get(
      '/api/identity/reviews',
      {
        schema: {
          operationId: 'listIdentityReviews',
          summary: "The account's identity reviews, newest first (status: pending, approved, rejected)",
          tags,
          security: [{ hmac: [] }],
          querystring: ReviewListQuery,
          response: { 200: IdentityReviewList, '4xx': ErrorResponse },
        },
      },
      async (req) => listIdentityReviews(deps, { accountId: req.account!.id, ...req.query }),
    );

    app.get(
      '/api/identity/reviews/:id',
      {
        schema: {
          operationId: 'getIdentityReview',
          summary: "One review with the signer's images (Base64), until the retention period deletes them",
          tags,
          security: [{ hmac: [] }],
          params: ReviewParams,
          response: { 200: IdentityReviewDetail, '4xx': ErrorResponse },
        },
      },
      async (req) => getIdentityReview(deps, { accountId: req.account!.id, id: req.params.id }),
    );

    app.post(
      '/api/identity/reviews/:id',
      {
        schema: {
          operationId: 'decideIdentityReview',
          summary: 'Approve (the signer may sign) or reject (they may not, with the reason) a pending review',
          tags,
          security: [{ hmac: [] }],
          params: ReviewParams,
          body: ReviewDecision,
          response: { 200: IdentityReview, '4xx': ErrorResponse },
        },
      },
      async (req) => decideIdentityReview(deps, { accountId: req.account!.id, id: req.params.id, body: req.body }),
    );
  };
}
