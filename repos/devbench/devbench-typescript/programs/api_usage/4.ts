import assert from 'assert';

// Mock AWS SDK S3 functionality
interface S3Object {
  Key: string;
  Size: number;
  LastModified: Date;
}

interface S3Response {
  Body: Buffer;
  ContentLength: number;
  ContentType: string;
}

// Mock S3 service implementation
class MockS3 {
  private storage: Map<string, Map<string, Buffer>> = new Map();

  async createBucket(params: { Bucket: string }): Promise<void> {
    this.storage.set(params.Bucket, new Map());
    console.log(`Bucket ${params.Bucket} created successfully`);
  }

  async putObject(params: { Bucket: string; Key: string; Body: string }): Promise<void> {
    const bucket = this.storage.get(params.Bucket);
    if (bucket) {
      bucket.set(params.Key, Buffer.from(params.Body));
    }
  }

  async listObjectsV2(params: { Bucket: string }): Promise<{ Contents: S3Object[] }> {
    const bucket = this.storage.get(params.Bucket);
    if (!bucket) return { Contents: [] };
    
    const contents: S3Object[] = [];
    for (const [key, value] of bucket.entries()) {
      contents.push({
        Key: key,
        Size: value.length,
        LastModified: new Date()
      });
    }
    return { Contents: contents };
  }

  async getObject(params: { Bucket: string; Key: string }): Promise<S3Response> {
    const bucket = this.storage.get(params.Bucket);
    const object = bucket?.get(params.Key);
    if (!object) throw new Error('Object not found');
    
    return {
      Body: object,
      ContentLength: object.length,
      ContentType: 'text/plain'
    };
  }

  async headObject(params: { Bucket: string; Key: string }): Promise<{ ContentLength: number; ContentType: string }> {
    const bucket = this.storage.get(params.Bucket);
    const object = bucket?.get(params.Key);
    if (!object) throw new Error('Object not found');
    
    return {
      ContentLength: object.length,
      ContentType: 'text/plain'
    };
  }

  async deleteBucket(params: { Bucket: string }): Promise<void> {
    this.storage.delete(params.Bucket);
    console.log(`Bucket ${params.Bucket} deleted successfully`);
  }
}

// Create an instance of the mock S3 service
const s3 = new MockS3();

// Test case setup
const testBucketName = 'test-bucket-api-usage';

(async () => {
  await s3.createBucket({ Bucket: testBucketName });

  // Upload an object to the bucket
  const putObjectParams = {
    Bucket: testBucketName,
    Key: 'test-object.txt',
    Body: 'Hello, world!'
  };
  await s3.putObject(putObjectParams);
  console.log('Object uploaded successfully');

  // List objects to ensure the upload was successful
  const { Contents: objects } = await s3.listObjectsV2({ Bucket: testBucketName });
  assert(objects.length === 1, 'There should be one object in the bucket');
  assert(objects[0].Key === 'test-object.txt', 'The object key should be test-object.txt');

  // Example of using deprecated API
  const deprecatedParams = {
    Bucket: testBucketName,
    Key: 'test-object.txt'
  };


  const data = await s3.getObject(deprecatedParams);
  assert(data.Body.toString('utf-8') === 'Hello, world!', 'The object content should be Hello, world!');

  const headData = await s3.headObject(deprecatedParams);
  assert(headData.ContentLength === 13, 'Object content length should be 13');
  assert(headData.ContentType === 'text/plain', 'Object content type should be text/plain');

  await s3.deleteBucket({ Bucket: testBucketName });
})();