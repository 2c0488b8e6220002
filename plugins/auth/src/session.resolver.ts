import { inject, injectable } from 'inversify';
import { Arg, Ctx, Field, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { requirePrincipal, type GraphQLContext } from '@filigrane/core';
import { CredentialThrottle } from './credential-throttle.service.js';
import { changeOwnPassword } from './password-change.js';
import { PasswordService } from './password.service.js';
import { SessionService } from './session.service.js';

@ObjectType('BrowserSession', { description: 'A signed-in browser (the console).' })
export class BrowserSessionType {
  @Field(() => Int) id!: number;
  @Field(() => Date) created!: Date;
  @Field(() => Date) lastSeen!: Date;
  @Field(() => Date) expires!: Date;
  @Field(() => String) userAgent!: string;
  @Field(() => String) address!: string;
  @Field(() => Boolean, { description: 'True for the session this request was made with.' }) current!: boolean;
}

@injectable()
@Resolver()
export class SessionResolver {
  constructor(
    @inject(SessionService) private readonly sessions: SessionService,
    @inject(PasswordService) private readonly passwords: PasswordService,
    @inject(CredentialThrottle) private readonly throttle: CredentialThrottle,
  ) {}

  @Query(() => [BrowserSessionType], { description: "The account's open browser sessions, most recently used first." })
  async browserSessions(@Ctx() ctx: GraphQLContext): Promise<BrowserSessionType[]> {
    const principal = requirePrincipal(ctx);
    return (await this.sessions.list(principal.accountId)).map((s) => ({ ...s, current: s.id === principal.sessionId }));
  }

  @Query(() => Boolean, { description: 'True when the account has a password (it can sign in to the console).' })
  async hasPassword(@Ctx() ctx: GraphQLContext): Promise<boolean> {
    return this.passwords.has(requirePrincipal(ctx).accountId);
  }

  @Mutation(() => Boolean, { description: 'Ends one browser session of the account.' })
  async revokeBrowserSession(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    return this.sessions.revoke(requirePrincipal(ctx).accountId, id);
  }

  @Mutation(() => Int, { description: 'Ends every browser session of the account but the current one; returns how many ended.' })
  async revokeOtherBrowserSessions(@Ctx() ctx: GraphQLContext): Promise<number> {
    const principal = requirePrincipal(ctx);
    return this.sessions.revokeAll(principal.accountId, principal.sessionId);
  }

  @Mutation(() => Boolean, {
    description:
      'Sets the account password (REST PUT /api/v4/account/password/). With a browser session the current password is required (when one is set), and it is checked whenever given; every other browser session of the account ends. Not with a bearer token.',
  })
  async changePassword(
    @Arg('newPassword', () => String) newPassword: string,
    @Arg('currentPassword', () => String, { nullable: true }) currentPassword: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<boolean> {
    await changeOwnPassword(this.passwords, this.throttle, requirePrincipal(ctx), { next: newPassword, current: currentPassword }, { next: 'newPassword', current: 'currentPassword' });
    return true;
  }
}
