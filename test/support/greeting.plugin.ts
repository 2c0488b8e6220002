// The minimal plugin of docs/plugins.md: a service, a REST route, a GraphQL query, a job and an
// extension point. The end-to-end tests load it next to the real plugins.
import { ContainerModule, inject, injectable } from 'inversify';
import { Arg, Ctx, Query, Resolver } from 'type-graphql';
import {
  canActOnHome,
  definePlugin,
  forbidden,
  ok,
  requirePrincipal,
  TOKENS,
  type ExtensionRegistry,
  type GraphQLContext,
  type Principal,
} from '@filigrane/core';
import { GREETERS } from './greeters.js';

@injectable()
export class GreetingService {
  constructor(@inject(TOKENS.Extensions) private readonly extensions: ExtensionRegistry) {}

  /** Greets the owner of `home`, if the caller may act on that home directory. */
  greet(principal: Principal, home: string): string[] {
    if (!canActOnHome(principal, home)) throw forbidden(`You may not act on ${home}.`);
    const name = home.slice(1);
    return [`Hello, ${name}`, ...this.extensions.get(GREETERS).map((greet) => greet(name))];
  }
}

@injectable()
@Resolver()
export class GreetingResolver {
  constructor(@inject(GreetingService) private readonly service: GreetingService) {}

  @Query(() => [String])
  greetings(@Arg('home', () => String) home: string, @Ctx() ctx: GraphQLContext): string[] {
    return this.service.greet(requirePrincipal(ctx), home);
  }
}

export const greetingPlugin = definePlugin({
  id: 'greeting',
  requires: ['auth'],
  extensionPoints: [GREETERS],
  bindings: new ContainerModule(({ bind }) => {
    bind(GreetingService).toSelf().inSingletonScope();
  }),
  routes: [
    {
      versions: ['v4'],
      method: 'GET',
      path: '/greetings/:home/',
      handler: async (ctx) => ok({ greetings: ctx.container.get(GreetingService).greet(ctx.principal!, `/${ctx.params.home}`) }),
    },
  ],
  resolvers: [GreetingResolver],
});
