import { inject, injectable } from 'inversify';
import { Arg, Ctx, Field, Float, InputType, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { requirePrincipal, type GraphQLContext } from '@filigrane/core';
import { ApiKeyService, requireTokenScheme } from '@filigrane/plugin-auth';
import { AccountDeletionService } from './account-deletion.service.js';
import { AccountService, type AccountView } from './account.service.js';
import { parseSettingsUpdate, SettingsService, type SettingsView } from './settings.service.js';

@ObjectType('Quotas', { description: 'Counters and limits; a null limit means no limit.' })
class QuotasType {
  @Field(() => Int) uploadedMarks!: number;
  @Field(() => Int, { nullable: true }) uploadedMarksLimit!: number | null;
  @Field(() => Int) uploadedImages!: number;
  @Field(() => Int, { nullable: true }) uploadedImagesLimit!: number | null;
  @Field(() => Int) activePathsInHome!: number;
  @Field(() => Int, { nullable: true }) activePathsInHomeLimit!: number | null;
  @Field(() => Int) pathsInHome!: number;
  @Field(() => Int, { nullable: true }) pathsInHomeLimit!: number | null;
  @Field(() => Int) userPaths!: number;
  @Field(() => Int, { nullable: true }) userPathsLimit!: number | null;
}

@ObjectType('Account')
class AccountType {
  @Field(() => String) username!: string;
  @Field(() => String) fullName!: string;
  @Field(() => String) email!: string;
  @Field(() => String, { nullable: true }) incidents!: string | null;
  @Field(() => String, { nullable: true }) expires!: string | null;
  @Field(() => Int) imageCount!: number;
  @Field(() => Int, { nullable: true }) imageQuota!: number | null;
  @Field(() => Float) diskUsage!: number;
  @Field(() => Float, { nullable: true }) diskQuota!: number | null;
  @Field(() => String) home!: string;
  @Field(() => [String]) permissions!: string[];
  @Field(() => QuotasType) quotas!: QuotasType;
}

@ObjectType('Notifications')
@InputType('NotificationsInput')
class NotificationsType {
  @Field(() => Boolean, { nullable: true }) notifyUpload?: boolean;
  @Field(() => Boolean, { nullable: true }) notifyPdf?: boolean;
  @Field(() => Boolean, { nullable: true }) notifyWeb?: boolean;
  @Field(() => Boolean, { nullable: true }) notifyDownload?: boolean;
  @Field(() => Boolean, { nullable: true }) notifyFavorite?: boolean;
  @Field(() => Boolean, { nullable: true }) notifyNewsletter?: boolean;
  @Field(() => Boolean, { nullable: true }) notifyOffers?: boolean;
  @Field(() => Boolean, { nullable: true }) notifyPdfDaily?: boolean;
  @Field(() => Boolean, { nullable: true }) notifyPdfWeekly?: boolean;
  @Field(() => Boolean, { nullable: true }) notifyMatchUrlDaily?: boolean;
  @Field(() => Boolean, { nullable: true }) notifyMatchUrlWeekly?: boolean;
  @Field(() => Boolean, { nullable: true }) notifyMatchSiteDaily?: boolean;
  @Field(() => Boolean, { nullable: true }) notifyMatchSiteWeekly?: boolean;
}

@ObjectType('AccountSettings')
class SettingsType {
  @Field(() => String) lang!: string;
  @Field(() => NotificationsType) notifications!: NotificationsType;
  @Field(() => [String]) notifSiteCountries!: string[];
}

@InputType('AccountSettingsInput', { description: 'Partial update: omitted fields keep their value.' })
class SettingsInput {
  @Field(() => String, { nullable: true }) lang?: string;
  @Field(() => NotificationsType, { nullable: true }) notifications?: NotificationsType;
  @Field(() => [String], { nullable: true }) notifSiteCountries?: string[];
}

const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const mapKeys = <T>(o: object, f: (k: string) => string) => Object.fromEntries(Object.entries(o).map(([k, v]) => [f(k), v])) as T;

const accountType = (v: AccountView): AccountType => ({
  ...mapKeys<AccountType>(v, camel),
  expires: v.expires ?? null,
  quotas: mapKeys<QuotasType>(v.quotas, camel),
});
const settingsType = (s: SettingsView): SettingsType => ({
  lang: s.lang,
  notifications: mapKeys<NotificationsType>(s.notifications, camel),
  notifSiteCountries: s.notif_site_countries,
});

@ObjectType('AccountDeletion', { description: 'An account being deleted: it stopped working at once; a job removes what it stored.' })
class AccountDeletionType {
  @Field(() => String) username!: string;
  @Field(() => String) status!: string;
  @Field(() => Date) requested!: Date;
}

@injectable()
@Resolver()
export class AccountResolver {
  constructor(
    @inject(AccountService) private readonly accounts: AccountService,
    @inject(SettingsService) private readonly settings: SettingsService,
    @inject(ApiKeyService) private readonly apiKeys: ApiKeyService,
    @inject(AccountDeletionService) private readonly deletion: AccountDeletionService,
  ) {}

  @Query(() => AccountType)
  async account(@Ctx() ctx: GraphQLContext): Promise<AccountType> {
    return accountType(await this.accounts.view(requirePrincipal(ctx).accountId));
  }

  @Query(() => SettingsType)
  async accountSettings(@Ctx() ctx: GraphQLContext): Promise<SettingsType> {
    return settingsType(await this.settings.get(requirePrincipal(ctx).accountId));
  }

  @Query(() => String, { nullable: true, description: 'The API key shown in the account settings (with the API key or a console session, not an OAuth bearer token).' })
  async accountApiKey(@Ctx() ctx: GraphQLContext): Promise<string | null> {
    const principal = requirePrincipal(ctx);
    requireTokenScheme(principal);
    return this.apiKeys.reveal(principal.accountId);
  }

  @Mutation(() => String, { description: 'Issues a new API key and revokes the old one at once (with the API key or a console session, not an OAuth bearer token).' })
  async rotateAccountApiKey(@Ctx() ctx: GraphQLContext): Promise<string> {
    const principal = requirePrincipal(ctx);
    requireTokenScheme(principal);
    return this.apiKeys.rotate(principal.accountId);
  }

  @Mutation(() => SettingsType)
  async updateAccountSettings(@Arg('input', () => SettingsInput) input: SettingsInput, @Ctx() ctx: GraphQLContext): Promise<SettingsType> {
    const body: Record<string, unknown> = {};
    if (input.lang !== undefined && input.lang !== null) body.lang = input.lang;
    if (input.notifications) {
      body.notifications = Object.fromEntries(Object.entries(input.notifications).filter(([, v]) => v !== undefined && v !== null).map(([k, v]) => [snake(k), v]));
    }
    if (input.notifSiteCountries) body.notif_site_countries = input.notifSiteCountries;
    return settingsType(await this.settings.update(requirePrincipal(ctx).accountId, parseSettingsUpdate(body)));
  }

  @Mutation(() => AccountDeletionType, { description: 'Deletes this account and everything it stored (with the API key or a console session, not an OAuth bearer token; `username` must be its own).' })
  async deleteAccount(@Arg('username', () => String) username: string, @Ctx() ctx: GraphQLContext): Promise<AccountDeletionType> {
    const request = await this.deletion.requestSelf(requirePrincipal(ctx), username);
    return { username: request.username, status: 'deleting', requested: request.requested };
  }
}
