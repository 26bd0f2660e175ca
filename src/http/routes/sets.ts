// Document sets: create, read, preload and remove signers, close (the flow starts), and adjust or
// cancel the running flow (POST /api/{uuid}/workflowSet).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { createDocumentSet } from '../../domain/sets/create-set.js';
import { getDocumentSet } from '../../domain/sets/get-set.js';
import { addSetSigner } from '../../domain/sets/add-set-signer.js';
import { closeDocumentSet } from '../../domain/sets/close-set.js';
import { removeSetSigner } from '../../domain/sets/remove-set-signer.js';
import { updateSetWorkflow } from '../../domain/sets/update-set-workflow.js';
import { ErrorResponse } from '../../schemas/common.js';
import {
  AddSetSignerBody,
  CloseSetBody,
  ClosedSet,
  CreateSetBody,
  CreatedSet,
  DocumentSet,
  RemovedSetSigner,
  SetParams,
  SetSignerParams,
  SetSignerView,
  SetWorkflowBody,
  SetWorkflowResult,
} from '../../schemas/sets.js';
import type { TypedApp } from '../typed-app.js';

export function setRoutes(deps: Deps) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    setContentRoutes(app, deps);
    setFlowRoutes(app, deps);
  };
}

/** The set and its preloaded signers, while it is OPEN. */
function setContentRoutes(app: TypedApp, deps: Deps): void {
  app.post(
    '/api/documentset',
    {
      schema: {
        operationId: 'createDocumentSet',
        summary: 'Create an empty, OPEN document set',
        tags: ['sets'],
        security: [{ hmac: [] }],
        body: CreateSetBody,
        response: { 200: CreatedSet, '4xx': ErrorResponse },
      },
    },
    async (req) => createDocumentSet(deps, { accountId: req.account!.id, body: req.body }),
  );

  app.get(
    '/api/documentset/:uuid',
    {
      schema: {
        operationId: 'getDocumentSet',
        summary: 'A document set with its documents and their signers',
        tags: ['sets'],
        security: [{ hmac: [] }],
        params: SetParams,
        response: { 200: DocumentSet, '4xx': ErrorResponse },
      },
    },
    async (req) => getDocumentSet(deps, { accountId: req.account!.id, uuid: req.params.uuid }),
  );

  app.post(
    '/api/documentset/:uuid/signer',
    {
      schema: {
        operationId: 'addSetSigner',
        summary: 'Preload a signer for the whole set while it is OPEN (the same authority and data again returns the existing one)',
        tags: ['sets'],
        security: [{ hmac: [] }],
        params: SetParams,
        body: AddSetSignerBody,
        response: { 200: SetSignerView, '4xx': ErrorResponse },
      },
    },
    async (req) => addSetSigner(deps, { accountId: req.account!.id, uuid: req.params.uuid, body: req.body }),
  );

  app.delete(
    '/api/documentset/:uuid/signer/:signerId',
    {
      schema: {
        operationId: 'removeSetSigner',
        summary: 'Remove a preloaded signer while the set is OPEN',
        tags: ['sets'],
        security: [{ hmac: [] }],
        params: SetSignerParams,
        response: { 200: RemovedSetSigner, '4xx': ErrorResponse },
      },
    },
    async (req) => removeSetSigner(deps, { accountId: req.account!.id, uuid: req.params.uuid, signerId: req.params.signerId }),
  );
}

/** Closing a set starts its flow; the running flow is adjusted or cancelled. */
function setFlowRoutes(app: TypedApp, deps: Deps): void {
  app.post(
    '/api/documentset/close',
    {
      schema: {
        operationId: 'closeDocumentSet',
        summary: 'Close an OPEN set: its signers are fixed, its documents become pending and the invitations go out',
        tags: ['sets'],
        security: [{ hmac: [] }],
        body: CloseSetBody,
        response: { 200: ClosedSet, '4xx': ErrorResponse },
      },
    },
    async (req) => closeDocumentSet(deps, { accountId: req.account!.id, body: req.body, ip: req.ip }),
  );

  app.post(
    '/api/:uuid/workflowSet',
    {
      schema: {
        operationId: 'updateSetWorkflow',
        summary: "Adjust or cancel a closed set's flow; every call restarts it (the invitation is sent again at once)",
        tags: ['sets'],
        security: [{ hmac: [] }],
        params: SetParams,
        body: SetWorkflowBody,
        response: { 200: SetWorkflowResult, '4xx': ErrorResponse },
      },
    },
    async (req) => updateSetWorkflow(deps, { accountId: req.account!.id, uuid: req.params.uuid, body: req.body, ip: req.ip }),
  );
}
