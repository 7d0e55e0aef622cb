// Why an org command decided nothing; the API and the admin command word each for their caller.
export type OrgRefusal =
  | 'org_not_found'
  | 'org_exists'
  | 'key_not_found'
  | 'invalid_request'
  | 'not_owner'
  | 'not_member'
  | 'member_not_found'
  | 'last_owner'
  | 'invitation_not_found'
  | 'invitation_closed'
  | 'price_not_found';

export class OrgCommandRefused extends Error {
  constructor(
    readonly code: OrgRefusal,
    message: string,
  ) {
    super(message);
  }
}
