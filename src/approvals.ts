/** `svc/approvals`: reading open approvals from a ledger and answering them with a reviewer key. */
export { readApprovals, readApproval, approve, reject, type ApprovalView, type Answered } from './approvals/approval-desk.js';
export { decideGrant, decideRejection } from './commands/approve.js';
