import { inject, injectable } from 'inversify';
import { Arg, Ctx, Field, ID, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { requirePrincipal, type GraphQLContext } from '@filigrane/core';
import type { OAuthApplication } from './auth.entities.js';
import { parseApplicationName } from './oauth-input.js';
import { OAuthService } from './oauth.service.js';

@ObjectType('OAuthApplication')
export class OAuthApplicationType {
  @Field(() => Int) id!: number;
  @Field(() => String) name!: string;
  @Field(() => String) clientId!: string;
  @Field(() => Date) created!: Date;
}

@ObjectType('CreatedOAuthApplication')
export class CreatedOAuthApplicationType extends OAuthApplicationType {
  @Field(() => String, { description: 'Shown only in this response; stored hashed.' })
  clientSecret!: string;
}

const view = (a: OAuthApplication): OAuthApplicationType => ({ id: a.id, name: a.name, clientId: a.clientId, created: a.created });

@injectable()
@Resolver()
export class OAuthResolver {
  constructor(@inject(OAuthService) private readonly oauth: OAuthService) {}

  @Query(() => [OAuthApplicationType])
  async oauthApplications(@Ctx() ctx: GraphQLContext): Promise<OAuthApplicationType[]> {
    const [apps] = await this.oauth.listApplications(requirePrincipal(ctx).accountId, 0, 1000);
    return apps.map(view);
  }

  @Mutation(() => CreatedOAuthApplicationType)
  async createOAuthApplication(@Arg('name', () => String) name: string, @Ctx() ctx: GraphQLContext): Promise<CreatedOAuthApplicationType> {
    const { application, clientSecret } = await this.oauth.createApplication(requirePrincipal(ctx).accountId, parseApplicationName({ name }));
    return { ...view(application), clientSecret };
  }

  @Mutation(() => Boolean, { description: 'Deletes the application and revokes its tokens.' })
  async deleteOAuthApplication(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    return /^\d{1,9}$/.test(id) && this.oauth.deleteApplication(requirePrincipal(ctx).accountId, Number(id));
  }
}
