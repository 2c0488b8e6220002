import { inject, injectable } from 'inversify';
import { Arg, Ctx, Field, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { requirePrincipal, type GraphQLContext } from '@filigrane/core';
import { fetchClientUrl } from '@filigrane/core';
import { parseOptions } from './watermarking-options.js';
import { WatermarkingService, type WatermarkingStatusView } from './watermarking.service.js';

@ObjectType('WatermarkingResult', { description: 'The three assets, served with the same credentials, until expiry.' })
class WatermarkingResultType {
  @Field(() => String) original!: string;
  @Field(() => String) watermarked!: string;
  @Field(() => String, { description: 'The .lmk to give to the media PUT (as url).' }) registration!: string;
  @Field(() => String, { description: 'ISO 8601 date after which the assets are gone.' }) expiry!: string;
}

@ObjectType('WatermarkingJob', { description: 'A watermarking and its state; result once complete, error once failed.' })
class WatermarkingJobType {
  @Field(() => String) id!: string;
  @Field(() => String, { description: 'The REST status URL.' }) url!: string;
  @Field(() => String, { description: 'pending, running, complete or failed' }) status!: string;
  @Field(() => String) created!: string;
  @Field(() => String, { nullable: true }) finished!: string | null;
  @Field(() => String) expiry!: string;
  @Field(() => WatermarkingResultType, { nullable: true }) result!: WatermarkingResultType | null;
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'The REST error body {status_code, code, details}.' }) error!: Record<string, unknown> | null;
}

const toType = (v: WatermarkingStatusView): WatermarkingJobType => ({ ...v, error: v.error as Record<string, unknown> | null });

@injectable()
@Resolver()
export class WatermarkingResolver {
  constructor(@inject(WatermarkingService) private readonly service: WatermarkingService) {}

  @Mutation(() => WatermarkingJobType, {
    description:
      'Watermark the image at url (http(s) or data URI). sync (default true) waits up to timeout seconds (default 120): '
      + 'complete with result, or the error the job failed with; still pending/running after a timeout (poll watermarkingJob). '
      + 'sync false returns the pending job at once.',
  })
  async watermarkImage(
    @Arg('url', () => String) url: string,
    @Arg('sync', () => Boolean, { nullable: true }) sync: boolean | null,
    @Arg('timeout', () => Int, { nullable: true }) timeout: number | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<WatermarkingJobType> {
    const principal = requirePrincipal(ctx);
    const options = parseOptions(sync, timeout);
    const bytes = await fetchClientUrl({ container: ctx.container, principal, baseUrl: ctx.baseUrl }, url);
    return toType(this.service.view(await this.service.watermark(principal.accountId, bytes, options), ctx.baseUrl));
  }

  @Query(() => WatermarkingJobType, { description: 'A watermarking of the caller\'s, by id.' })
  async watermarkingJob(@Arg('id', () => String) id: string, @Ctx() ctx: GraphQLContext): Promise<WatermarkingJobType> {
    return toType(this.service.view(await this.service.find(requirePrincipal(ctx).accountId, id), ctx.baseUrl));
  }
}
